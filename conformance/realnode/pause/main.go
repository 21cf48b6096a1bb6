// The sandbox ("pause") container's only process, built here so the node pulls nothing: it
// holds the pod's namespaces until the runtime stops it, and exits on SIGINT or SIGTERM as
// upstream's pause.c does. As PID 1 it has no default signal handlers, so it installs them.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
