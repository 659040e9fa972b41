# irnet/phy.mk: SIR framing, FCS, captures, the emulated wire, irwire.
