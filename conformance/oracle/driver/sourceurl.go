package driver

import (
	"net/http"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
)

// SourceURL mirrors the layout of pkg/kubelet/config's unexported sourceURL (identical in
// 1.32-1.37; each version module's layout test compares it with that version's http.go). It
// exists so the oracle can call the real (*sourceURL).extractFromURL once and synchronously:
// NewSourceURL would poll forever in a goroutine, and its result reaches nothing but a log line.
// updates is the source's channel, kept as a pointer because its element type changes (1.36).
type SourceURL struct {
	url         string
	header      http.Header
	nodeName    types.NodeName
	updates     unsafe.Pointer
	data        []byte
	failureLogs int
	client      *http.Client
}

// NewSourceURL fills the fields exactly as upstream's NewSourceURL does, with the header the
// kubelet passes when --manifest-url-header is unset (make(http.Header)).
func NewSourceURL(url string, nodeName string, updates unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(&SourceURL{
		url:      url,
		header:   make(http.Header),
		nodeName: types.NodeName(nodeName),
		updates:  updates,
		data:     nil,
		client:   &http.Client{Timeout: 10 * time.Second},
	})
}
