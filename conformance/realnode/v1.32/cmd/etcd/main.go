// etcd as its own binary runs it (go.etcd.io/etcd/v3's main.go), at the server version this
// kubernetes release requires, so the API server talks to the etcd its own tests use.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
