package main

// The calls of 1.32-1.34 whose signatures change in 1.35 (v1.33 and v1.34 link to this file).
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
func listConfig(s unsafe.Pointer) error

//go:linkname extractFromURL k8s.io/kubernetes/pkg/kubelet/config.(*sourceURL).extractFromURL
func extractFromURL(s unsafe.Pointer) error

//go:linkname storageMerge k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).Merge
func storageMerge(s unsafe.Pointer, source string, change interface{}) error

// sourceLoggerParam: the sources take no logger before 1.35.
const sourceLoggerParam = false

func merge(storage unsafe.Pointer, _ context.Context, source string, change interface{}) error {
	return storageMerge(storage, source, change)
}

func (adapter) ListFile(path, nodeName string, updates unsafe.Pointer, _ klog.Logger) error {
	return listConfig(newSourceFile(path, types.NodeName(nodeName), fileCheckFrequency, updates))
}

func (adapter) ExtractFromURL(s unsafe.Pointer, _ klog.Logger) error { return extractFromURL(s) }

func (adapter) NewSourceApiserver(_ klog.Logger, client kubernetes.Interface, nodeName string, nodeHasSynced func() bool, updates reflect.Value) {
	driver.Call(config.NewSourceApiserver, client, types.NodeName(nodeName), nodeHasSynced, updates)
}
