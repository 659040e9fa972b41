# irqtune/: serial interrupt tuning (irqtune(8), irqtune.conf(5)).
