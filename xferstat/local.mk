# xferstat/: transfer timing and statistics (xferstat(1)).
include xferstat/stats.mk
