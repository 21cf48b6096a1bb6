// Package driver runs an oracle: the kubelet's own pkg/kubelet/config code, at the version the
// importing module pins, driven by JSON-lines requests (conformance/oracle/README.md, "Protocol").
package driver

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/capabilities"
)

// defaultNodeName is the node name used when a request names none.
const defaultNodeName = "node-a"

type oracle struct {
	adapter  Adapter
	logs     *capture
	logger   klog.Logger
	manifest *manifestServer
}

// Main serves requests on stdin until it closes, or runs the api source with `api ...`.
func Main(adapter Adapter) {
	logs := &capture{}
	logger := logs.Logger()
	// Code that logs through klog's global functions (every source up to 1.34) reaches logs too.
	klog.SetLogger(logger)
	o := &oracle{adapter: adapter, logs: logs, logger: logger}
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "internal-types" {
		if err := WriteInternalPodTypes(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "oracle internal-types:", err)
			os.Exit(1)
		}
		return
	}
	api := len(args) > 0 && args[0] == "api"
	if api {
		args = args[1:]
	}
	flags := flag.NewFlagSet("oracle", flag.ExitOnError)
	featureGates := flags.String("feature-gates", "", "as the kubelet's --feature-gates (A=true,B=false); default: the release's defaults")
	kubeconfig := flags.String("kubeconfig", "", "api: kubeconfig of the API server")
	nodeName := flags.String("node-name", defaultNodeName, "api: the node whose pods the source lists")
	flags.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: oracle [--feature-gates G] (JSON lines on stdin) | oracle api --kubeconfig F --node-name N [--feature-gates G] | oracle internal-types")
	}
	_ = flags.Parse(args)
	if flags.NArg() > 0 || (!api && *kubeconfig != "") {
		flags.Usage()
		os.Exit(2)
	}
	if err := utilfeature.DefaultMutableFeatureGate.Set(*featureGates); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: --feature-gates:", err)
		os.Exit(2)
	}
	// RunKubelet (cmd/kubelet/app/server.go, 1.32-1.37) allows privileged containers before any
	// source runs; without it validation sees the package default and refuses privileged: true.
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
	if api {
		if err := o.runAPI(*kubeconfig, *nodeName); err != nil {
			fmt.Fprintln(os.Stderr, "oracle api:", err)
			os.Exit(1)
		}
		return
	}
	if err := o.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func (o *oracle) serve(in io.Reader, out io.Writer) error {
	reader := bufio.NewReader(in)
	writer := bufio.NewWriter(out)
	for {
		line, err := reader.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if werr := o.answer(line, writer); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (o *oracle) answer(line []byte, writer *bufio.Writer) error {
	var req Request
	var resp map[string]any
	if err := json.Unmarshal(line, &req); err != nil {
		resp = map[string]any{"oracleError": "bad request: " + err.Error()}
	} else {
		resp = o.handle(req)
		if req.ID != nil {
			resp["id"] = req.ID
		}
	}
	encoded, err := json.Marshal(resp)
	if err != nil {
		encoded, _ = json.Marshal(map[string]any{"id": req.ID, "oracleError": "encoding the response: " + err.Error()})
	}
	if _, err := writer.Write(append(encoded, '\n')); err != nil {
		return err
	}
	return writer.Flush()
}

func (o *oracle) handle(req Request) map[string]any {
	o.logs.take() // anything logged between requests belongs to none of them
	nodeName := req.NodeName
	if nodeName == "" {
		nodeName = defaultNodeName
	}
	switch req.Cmd {
	case "info":
		return o.info()
	case "file":
		return o.file(req.Path, nodeName)
	case "url":
		return o.url(req, nodeName)
	case "merge":
		return o.merge(req)
	case "hashdump":
		return o.hashDump(req)
	default:
		return map[string]any{"oracleError": fmt.Sprintf("unknown cmd %q", req.Cmd)}
	}
}

func (o *oracle) info() map[string]any {
	var out map[string]any
	encoded, _ := json.Marshal(FullFacts(o.adapter))
	_ = json.Unmarshal(encoded, &out)
	return out
}

func errorText(err error) *string {
	if err == nil {
		return nil
	}
	text := err.Error()
	return &text
}

func (o *oracle) file(path, nodeName string) map[string]any {
	if path == "" {
		return map[string]any{"oracleError": "file needs a path"}
	}
	ch := newSourceChan(o.adapter.SourceChanElem(), o.adapter.Ops())
	// NewSourceFile's one step before newSourceFile: the inotify library wants no trailing "/".
	listErr := o.adapter.ListFile(strings.TrimRight(path, string(os.PathSeparator)), nodeName, ch.ch.UnsafePointer(), o.logger)
	logs := o.logs.take()
	return map[string]any{
		"sent":      ch.drain("file"),
		"errors":    fileErrors(logs),
		"listError": errorText(listErr),
		"logs":      logs,
	}
}

// requestBody is the request's body or bodyBase64 (nil when it has neither).
func requestBody(req Request) ([]byte, error) {
	switch {
	case req.BodyBase64 != nil:
		decoded, err := base64.StdEncoding.DecodeString(*req.BodyBase64)
		if err != nil {
			return nil, fmt.Errorf("bodyBase64: %w", err)
		}
		return decoded, nil
	case req.Body != nil:
		return []byte(*req.Body), nil
	}
	return nil, nil
}

func (o *oracle) hashDump(req Request) map[string]any {
	body, err := requestBody(req)
	if err != nil {
		return map[string]any{"oracleError": err.Error()}
	}
	dumps, err := hashDumps(body)
	return map[string]any{"dumps": dumps, "error": errorText(err)}
}

func (o *oracle) url(req Request, nodeName string) map[string]any {
	body, err := requestBody(req)
	if err != nil {
		return map[string]any{"oracleError": err.Error()}
	}
	status := req.Status
	if status == 0 {
		status = 200
	}
	if o.manifest == nil {
		server, err := startManifestServer()
		if err != nil {
			return map[string]any{"oracleError": "loopback server: " + err.Error()}
		}
		o.manifest = server
	}
	o.manifest.serve(status, body)
	ch := newSourceChan(o.adapter.SourceChanElem(), o.adapter.Ops())
	source := NewSourceURL(o.manifest.url, nodeName, ch.ch.UnsafePointer())
	err = o.adapter.ExtractFromURL(source, o.logger)
	return map[string]any{
		"url":   o.manifest.url,
		"sent":  ch.drain("http"),
		"error": errorText(err),
		"logs":  o.logs.take(),
	}
}

func (o *oracle) merge(req Request) map[string]any {
	recorder := &Recorder{}
	config, err := o.adapter.NewPodConfig(req.Mode, recorder, o.logger)
	if err != nil {
		return map[string]any{"oracleError": err.Error()}
	}
	defer config.Close()
	for _, source := range req.Sources {
		config.Channel(source)
	}
	// The kubelet's sync loop adds the source of every update it receives to SourcesReady's
	// seen set (syncLoopIteration: kl.sourcesReady.AddSource(u.Source)); SeenAllSources is asked
	// with that set.
	received := []string{}
	steps := []MergeStep{}
	ops := o.adapter.Ops()
	hasOp := o.adapter.Facts().SourceUpdateHasOp
	emittedChan := sourceChan{ch: reflect.ValueOf(config.Updates()), ops: ops}
	for i, step := range req.Steps {
		op := int64(0)
		if hasOp {
			value, err := opValue(ops, step.Op)
			if err != nil {
				return map[string]any{"oracleError": fmt.Sprintf("steps[%d]: %v", i, err)}
			}
			op = value
		}
		pods := make([]*v1.Pod, 0, len(step.Pods))
		for j, raw := range step.Pods {
			pod := &v1.Pod{}
			if err := json.Unmarshal(raw, pod); err != nil {
				return map[string]any{"oracleError": fmt.Sprintf("steps[%d].pods[%d]: %v", i, j, err)}
			}
			pods = append(pods, pod)
		}
		mergeErr := config.Merge(step.Source, op, pods)
		emitted := emittedChan.drain("")
		for _, update := range emitted {
			received = append(received, update.Source)
		}
		seen := map[string]bool{}
		for _, source := range req.Sources {
			seen[source] = config.StorageSeen(source)
		}
		steps = append(steps, MergeStep{
			Emitted:        emitted,
			MergeError:     errorText(mergeErr),
			StorageSeen:    seen,
			SeenAllSources: config.SeenAllSources(received),
			Events:         recorder.take(),
			Logs:           o.logs.take(),
		})
	}
	return map[string]any{"steps": steps}
}
