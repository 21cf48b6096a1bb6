// The adapter of the 1.36 and 1.37 oracles (v1.36/main.go links to this file; what differs
// between the two is in each one's observer.go). Since 1.36 there are no notification modes and
// no SET: sources send an unexported sourceUpdate (pods only) on a chan<- sourceUpdate, so the
// driver makes and reads those channels by reflect.
package main

import (
	"context"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"podconfig-exporter/oracle/driver"
)

// The unexported functions the kubelet's sources run, reached by go:linkname (a pull of a
// non-standard-library symbol, which the linker accepts without -checklinkname=0). Pointers to
// the unexported receiver types are unsafe.Pointer; a channel is one pointer, so is its type here.

//go:linkname newSourceFile k8s.io/kubernetes/pkg/kubelet/config.newSourceFile
func newSourceFile(path string, nodeName types.NodeName, period time.Duration, updates unsafe.Pointer) unsafe.Pointer

//go:linkname listConfig k8s.io/kubernetes/pkg/kubelet/config.(*sourceFile).listConfig
func listConfig(s unsafe.Pointer, logger klog.Logger) error

//go:linkname extractFromURL k8s.io/kubernetes/pkg/kubelet/config.(*sourceURL).extractFromURL
func extractFromURL(s unsafe.Pointer, logger klog.Logger) error

//go:linkname storageMerge k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).Merge
func storageMerge(s unsafe.Pointer, ctx context.Context, source string, update sourceUpdate) error

//go:linkname storageSeenSources k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).seenSources
func storageSeenSources(s unsafe.Pointer, sources ...string) bool

// sourceUpdate mirrors config's unexported sourceUpdate for storageMerge's signature; init
// checks it against the real type, field by field.
type sourceUpdate struct {
	Pods []*v1.Pod
}

// sourceUpdateType is config.sourceUpdate, read off PodConfig.Channel's result type.
var sourceUpdateType = reflect.TypeOf((*config.PodConfig).Channel).Out(0).Elem()

func init() { driver.SameLayout(sourceUpdateType, reflect.TypeFor[sourceUpdate]()) }

// fileCheckFrequency is the kubelet's default --file-check-frequency; listConfig never reads it.
const fileCheckFrequency = 20 * time.Second

type adapter struct{}

func (adapter) Facts() driver.Facts {
	return driver.Facts{
		Modes:                     []string{},
		SourceUpdateHasOp:         false,
		SourceLoggerParam:         true,
		SeenAllSourcesLoggerParam: seenAllSourcesLoggerParam,
		ObserverLoggerParam:       observerLoggerParam,
		NodeSyncWaitsForNode:      true,
	}
}

func (adapter) Ops() []driver.Op {
	return []driver.Op{
		{Name: "ADD", Value: int64(kubetypes.ADD)},
		{Name: "DELETE", Value: int64(kubetypes.DELETE)},
		{Name: "REMOVE", Value: int64(kubetypes.REMOVE)},
		{Name: "UPDATE", Value: int64(kubetypes.UPDATE)},
		{Name: "RECONCILE", Value: int64(kubetypes.RECONCILE)},
	}
}

func (adapter) SourceChanElem() reflect.Type { return sourceUpdateType }

func (adapter) ListFile(path, nodeName string, updates unsafe.Pointer, logger klog.Logger) error {
	return listConfig(newSourceFile(path, types.NodeName(nodeName), fileCheckFrequency, updates), logger)
}

func (adapter) ExtractFromURL(s unsafe.Pointer, logger klog.Logger) error {
	return extractFromURL(s, logger)
}

func (adapter) NewSourceApiserver(logger klog.Logger, client kubernetes.Interface, nodeName string, nodeHasSynced func() bool, updates reflect.Value) {
	driver.Call(config.NewSourceApiserver, logger, client, types.NodeName(nodeName), nodeHasSynced, updates)
}

type podConfig struct {
	config *config.PodConfig
	logger klog.Logger
	cancel context.CancelFunc
	ctx    context.Context
}

// NewPodConfig ignores mode: 1.36 removed the notification modes (always incremental).
func (adapter) NewPodConfig(_ string, recorder *driver.Recorder, logger klog.Logger) (driver.PodConfig, error) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	return &podConfig{config: config.NewPodConfig(recorder, noopObserver{}), logger: logger, ctx: ctx, cancel: cancel}, nil
}

func (c *podConfig) Channel(source string) { c.config.Channel(c.ctx, source) }

// Merge ignores op: 1.36 sources send pods without one.
func (c *podConfig) Merge(source string, _ int64, pods []*v1.Pod) error {
	return storageMerge(driver.FieldPointer(c.config, "pods"), c.ctx, source, sourceUpdate{Pods: pods})
}

func (c *podConfig) Updates() any { return c.config.Updates() }

func (c *podConfig) StorageSeen(source string) bool {
	return storageSeenSources(driver.FieldPointer(c.config, "pods"), source)
}

func (c *podConfig) SeenAllSources(seen []string) bool {
	return seenAllSources(c.config, c.logger, sets.New(seen...))
}

func (c *podConfig) Close() { c.cancel() }

func main() { driver.Main(adapter{}) }
