// The kubelet 1.32's static pod decoding (pkg/kubelet/config/common.go) as a WebAssembly
// reactor: its own tryDecodeSinglePod and tryDecodePodList with its own applyDefaults, reached
// through go:linkname (they are unexported), so nothing of the decode, the defaults or the
// validation is rewritten here. 1.32's functions take no logger. See ../README.md.
package main

import (
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/kubelet/config" // links the functions named below

	"podconfig-exporter/wasm/abi"
)

var _ unsafe.Pointer // go:linkname needs unsafe imported

// defaultFunc is the package's unexported `type defaultFunc func(*api.Pod) error`.
type defaultFunc = func(*api.Pod) error

//go:linkname tryDecodeSinglePod k8s.io/kubernetes/pkg/kubelet/config.tryDecodeSinglePod
func tryDecodeSinglePod(data []byte, defaultFn defaultFunc) (bool, *v1.Pod, error)

//go:linkname tryDecodePodList k8s.io/kubernetes/pkg/kubelet/config.tryDecodePodList
func tryDecodePodList(data []byte, defaultFn defaultFunc) (bool, v1.PodList, error)

//go:linkname applyDefaults k8s.io/kubernetes/pkg/kubelet/config.applyDefaults
func applyDefaults(pod *api.Pod, source string, isFile bool, nodeName types.NodeName) error

// The sources' own closures: file.go's s.applyDefaults(pod, filename) with isFile true,
// http.go's with the URL and isFile false.
func defaults(source string, isFile bool, nodeName string) defaultFunc {
	return func(pod *api.Pod) error {
		return applyDefaults(pod, source, isFile, types.NodeName(nodeName))
	}
}

func init() {
	abi.Register(abi.KindSinglePod, func(data []byte, source string, isFile bool, node string) (bool, any, error) {
		return tryDecodeSinglePod(data, defaults(source, isFile, node))
	})
	abi.Register(abi.KindPodList, func(data []byte, source string, isFile bool, node string) (bool, any, error) {
		return tryDecodePodList(data, defaults(source, isFile, node))
	})
}

func main() {}
