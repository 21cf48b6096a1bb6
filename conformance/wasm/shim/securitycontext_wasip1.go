//go:build wasip1

// Added to k8s.io/kubernetes/pkg/securitycontext in the wasip1 build (go build -overlay, see
// ../build.sh): from 1.37 util.go calls possibleCPUs, which only util_linux.go, util_darwin.go
// and util_windows.go define. WebAssembly has no CPU list to read: none, as on darwin.

package securitycontext

func possibleCPUs() []int { return nil }
