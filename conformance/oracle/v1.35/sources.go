package main

// The calls of 1.35 whose signatures differ from 1.32-1.34: the sources and podStorage.Merge take
// a logger (listConfig, extractFromURL, NewSourceApiserver a klog.Logger; Merge a context).
// The unexported functions the kubelet's sources run are reached by go:linkname (a pull of a
// non-standard-library symbol, which the linker accepts without -checklinkname=0). Pointers to
// the unexported receiver types are unsafe.Pointer; a channel is one pointer, so is its type here.

import (
	"context"
	"reflect"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"podconfig-exporter/oracle/driver"
)

//go:linkname newSourceFile k8s.io/kubernetes/pkg/kubelet/config.newSourceFile
func newSourceFile(path string, nodeName types.NodeName, period time.Duration, updates unsafe.Pointer) unsafe.Pointer

//go:linkname listConfig k8s.io/kubernetes/pkg/kubelet/config.(*sourceFile).listConfig
func listConfig(s unsafe.Pointer, logger klog.Logger) error

//go:linkname extractFromURL k8s.io/kubernetes/pkg/kubelet/config.(*sourceURL).extractFromURL
func extractFromURL(s unsafe.Pointer, logger klog.Logger) error

//go:linkname storageMerge k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).Merge
func storageMerge(s unsafe.Pointer, ctx context.Context, source string, change interface{}) error

// sourceLoggerParam: from 1.35 the sources take a logger.
const sourceLoggerParam = true

func merge(storage unsafe.Pointer, ctx context.Context, source string, change interface{}) error {
	return storageMerge(storage, ctx, source, change)
}

func (adapter) ListFile(path, nodeName string, updates unsafe.Pointer, logger klog.Logger) error {
	return listConfig(newSourceFile(path, types.NodeName(nodeName), fileCheckFrequency, updates), logger)
}

func (adapter) ExtractFromURL(s unsafe.Pointer, logger klog.Logger) error {
	return extractFromURL(s, logger)
}

func (adapter) NewSourceApiserver(logger klog.Logger, client kubernetes.Interface, nodeName string, nodeHasSynced func() bool, updates reflect.Value) {
	driver.Call(config.NewSourceApiserver, logger, client, types.NodeName(nodeName), nodeHasSynced, updates)
}
