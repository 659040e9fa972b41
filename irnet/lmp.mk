# irnet/lmp.mk: IrLMP, IAS and TinyTP.
