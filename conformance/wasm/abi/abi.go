// Package abi is the boundary between the kubelet's manifest decoding, compiled to WebAssembly,
// and its JavaScript host (bench/kubelet_wasm.ts). The host writes a request into the buffer Input
// returns, calls Decode, and reads the reply Decode left at Reply. Both buffers are kept here
// between calls: Go's heap does not move, so their addresses stay valid until the next call.
// One request at a time, as the decoding thread sends them.
package abi

import (
	"encoding/json"
	"unsafe"
)

// Decoder is one of the kubelet's decode functions with its default function bound to the
// source: tryDecodeSinglePod or tryDecodePodList with applyDefaults(source, isFile, nodeName).
type Decoder func(data []byte, source string, isFile bool, nodeName string) (parsed bool, pods any, err error)

// What the host calls, by the kind it passes to Decode.
const (
	KindSinglePod = 0
	KindPodList   = 1
)

var (
	decoders = map[int32]Decoder{}
	input    []byte
	reply    []byte
)

// Register binds a kind to the version's decode function; called from main's init.
func Register(kind int32, d Decoder) { decoders[kind] = d }

type result struct {
	Parsed bool   `json:"parsed"`
	Pods   any    `json:"pods,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Input returns a buffer of size bytes for the next request.
//
//go:wasmexport input
func Input(size int32) unsafe.Pointer {
	if cap(input) < int(size) {
		input = make([]byte, size)
	}
	input = input[:size]
	return unsafe.Pointer(unsafe.SliceData(input))
}

// Reply returns the address of the last reply; its length is what Decode returned.
//
//go:wasmexport reply
func Reply() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(reply)) }

// Decode decodes the request in the input buffer: the source (the file's path or the URL),
// then the node name, then the manifest, of the lengths given. It returns the length of the
// reply, JSON: {"parsed", "pods" (a v1.Pod or a v1.PodList), "error"}, or -1 for an unknown kind.
//
//go:wasmexport decode
func Decode(kind, isFile, sourceLen, nodeLen, dataLen int32) int32 {
	decode, ok := decoders[kind]
	if !ok {
		return -1
	}
	source := string(input[:sourceLen])
	node := string(input[sourceLen : sourceLen+nodeLen])
	data := input[sourceLen+nodeLen : sourceLen+nodeLen+dataLen]
	parsed, pods, err := decode(data, source, isFile != 0, node)
	r := result{Parsed: parsed}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Pods = pods
	}
	out, merr := json.Marshal(r)
	if merr != nil {
		out, _ = json.Marshal(result{Parsed: parsed, Error: "encoding the reply: " + merr.Error()})
	}
	reply = out
	return int32(len(reply))
}
