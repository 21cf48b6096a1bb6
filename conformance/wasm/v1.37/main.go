// The kubelet 1.37's static pod decoding (pkg/kubelet/config/common.go) as a WebAssembly
// reactor: its own tryDecodeSinglePod and tryDecodePodList with its own applyDefaults, reached
// through go:linkname (they are unexported), so nothing of the decode, the defaults or the
// validation is rewritten here. See ../README.md.
package main

import (
	"unsafe"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/kubelet/config" // links the functions named below

	"podconfig-exporter/wasm/abi"
)

var _ unsafe.Pointer // go:linkname needs unsafe imported

// defaultFunc is the package's unexported `type defaultFunc func(klog.Logger, *api.Pod) error`.
type defaultFunc = func(klog.Logger, *api.Pod) error

//go:linkname tryDecodeSinglePod k8s.io/kubernetes/pkg/kubelet/config.tryDecodeSinglePod
func tryDecodeSinglePod(logger klog.Logger, data []byte, defaultFn defaultFunc) (bool, *v1.Pod, error)

//go:linkname tryDecodePodList k8s.io/kubernetes/pkg/kubelet/config.tryDecodePodList
func tryDecodePodList(logger klog.Logger, data []byte, defaultFn defaultFunc) (bool, v1.PodList, error)

//go:linkname applyDefaults k8s.io/kubernetes/pkg/kubelet/config.applyDefaults
func applyDefaults(logger klog.Logger, pod *api.Pod, source string, isFile bool, nodeName types.NodeName) error

// The sources' own closures: file.go's s.applyDefaults(logger, pod, filename) with isFile
// true, http.go's with the URL and isFile false.
func defaults(source string, isFile bool, nodeName string) defaultFunc {
	return func(logger klog.Logger, pod *api.Pod) error {
		return applyDefaults(logger, pod, source, isFile, types.NodeName(nodeName))
	}
}

// The priority warning and the V(5) lines go nowhere: the reply carries what matters.
var logger = logr.Discard()

func init() {
	abi.Register(abi.KindSinglePod, func(data []byte, source string, isFile bool, node string) (bool, any, error) {
		return tryDecodeSinglePod(logger, data, defaults(source, isFile, node))
	})
	abi.Register(abi.KindPodList, func(data []byte, source string, isFile bool, node string) (bool, any, error) {
		return tryDecodePodList(logger, data, defaults(source, isFile, node))
	})
}

func main() {}
