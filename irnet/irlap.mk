# irnet/irlap.mk: IrLAP and its QoS negotiation.
