# progress.awk turns `go build -v` output into one dot per compiled package, so the first
# `make run` shows it is working; lines from go itself (downloads) and compiler errors are
# printed as they are.
/^go: |^# |\.go:[0-9]+:[0-9]+: / { if (dots) print ""; dots = 0; print; next }
{ printf "."; dots = 1; fflush() }
END { if (dots) print "" }
