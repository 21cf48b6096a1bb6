package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// runAPI streams what upstream's api source sends until stdin closes.
func (o *oracle) runAPI(kubeconfig, nodeName string) error {
	logs := json.NewEncoder(os.Stderr)
	o.logs.mu.Lock()
	o.logs.stream = func(entry LogEntry) { _ = logs.Encode(entry) }
	o.logs.mu.Unlock()
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	// nodeHasSynced as the kubelet wires it (pkg/kubelet/kubelet.go NewMainKubelet): a node
	// informer restricted to this node's name, and either its synced state (up to 1.36) or, from
	// 1.37, whether the Node object is in its cache (newNodeHasSyncedFunc, copied below since
	// the kubelet package does not export it; TestAdapterMatchesSource checks which one a minor uses).
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(options *metav1.ListOptions) {
		options.FieldSelector = fields.Set{metav1.ObjectNameField: nodeName}.String()
	}))
	nodes := factory.Core().V1().Nodes()
	nodeHasSynced := nodes.Informer().HasSynced
	if o.adapter.Facts().NodeSyncWaitsForNode {
		nodeHasSynced = newNodeHasSyncedFunc(nodes.Lister(), nodeName)
	}
	factory.Start(wait.NeverStop)

	ch := newSourceChan(o.adapter.SourceChanElem(), o.adapter.Ops())
	o.adapter.NewSourceApiserver(o.logger, client, nodeName, nodeHasSynced, ch.ch)

	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	encoder := json.NewEncoder(os.Stdout)
	for {
		v, ok := ch.ch.Recv()
		if !ok {
			return nil
		}
		if err := encoder.Encode(ch.decode(v, "api")); err != nil {
			return err
		}
	}
}

// newNodeHasSyncedFunc is pkg/kubelet/kubelet.go's (1.37): true once this node's Node object is in
// the informer cache, and from then on.
func newNodeHasSyncedFunc(nodeLister corelisters.NodeLister, nodeName string) func() bool {
	var synced atomic.Bool
	return func() bool {
		if synced.Load() {
			return true
		}
		if _, err := nodeLister.Get(nodeName); err == nil {
			synced.Store(true)
			return true
		}
		return false
	}
}
