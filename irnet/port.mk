# irnet/port.mk: the event loop, the serial port, the dongle drivers.
