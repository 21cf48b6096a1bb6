package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
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
	// nodeHasSynced as the kubelet wires it (pkg/kubelet/kubelet.go NewMainKubelet): the synced
	// state of a node informer restricted to this node's name.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(options *metav1.ListOptions) {
		options.FieldSelector = fields.Set{metav1.ObjectNameField: nodeName}.String()
	}))
	nodeInformer := factory.Core().V1().Nodes().Informer()
	factory.Start(wait.NeverStop)

	ch := newSourceChan(o.adapter.SourceChanElem(), o.adapter.Ops())
	o.adapter.NewSourceApiserver(o.logger, client, nodeName, nodeInformer.HasSynced, ch.ch)

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
