package driver

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/core"
	hashutil "k8s.io/kubernetes/pkg/util/hash"
)

// recordingHash is a hash.Hash that keeps what is written to it: handed to the kubelet's own
// hash.DeepHashObject, it holds exactly the bytes the kubelet's MD5 of a static pod reads
// before the source is appended.
type recordingHash struct{ written []byte }

func (h *recordingHash) Write(p []byte) (int, error) {
	h.written = append(h.written, p...)
	return len(p), nil
}
func (h *recordingHash) Sum(b []byte) []byte { return append(b, h.written...) }
func (h *recordingHash) Reset()              { h.written = nil }
func (h *recordingHash) Size() int           { return len(h.written) }
func (h *recordingHash) BlockSize() int      { return 1 }

// hashDumps decodes body as tryDecodeSinglePod does (utilyaml.ToJSON, then the legacy scheme's
// UniversalDecoder: v1, its defaults, the conversion to the internal Pod) and returns, for the
// pod or each item of a PodList, what applyDefaults' DeepHashObject writes into the hasher.
// Pods with a UID of their own are included: the kubelet hashes only those without one.
func hashDumps(body []byte) ([]string, error) {
	json, err := utilyaml.ToJSON(body)
	if err != nil {
		return nil, err
	}
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), json)
	if err != nil {
		return nil, err
	}
	var pods []*core.Pod
	switch decoded := obj.(type) {
	case *core.Pod:
		pods = []*core.Pod{decoded}
	case *core.PodList:
		for i := range decoded.Items {
			pods = append(pods, &decoded.Items[i])
		}
	default:
		return nil, fmt.Errorf("not a Pod or a PodList: %s", reflect.TypeOf(obj))
	}
	dumps := make([]string, 0, len(pods))
	for _, pod := range pods {
		h := &recordingHash{}
		hashutil.DeepHashObject(h, pod)
		dumps = append(dumps, string(h.written))
	}
	return dumps, nil
}
