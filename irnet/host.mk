# irnet/host.mk: the real-time stack host and the user programs (irdiscover, irspray).
