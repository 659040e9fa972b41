# xferstat/stats.mk: statistics, comparison and plots.
