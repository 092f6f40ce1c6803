// Command vk-baseline runs one virtual node on virtual-kubelet's own node library (nodeutil and
// node, v1.14.1) with an in-memory provider equivalent to Tether's simulated one, so that
// `npm run bench:compare` can measure both agents on the same control plane. See
// docs/benchmarks.md. SIGUSR2 makes the provider's pings fail (a remote outage), SIGUSR1 heals it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// eventLog appends "<namespace>/<name> <uid> <event> <unix ms>" lines: when the provider
// notified a status, for the provider-to-host latency the benchmark computes.
type eventLog struct {
	mu   sync.Mutex
	file *os.File
}

func (l *eventLog) record(pod *corev1.Pod, event string) {
	if l == nil || l.file == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.file, "%s/%s %s %s %d\n", pod.Namespace, pod.Name, pod.UID, event, time.Now().UnixMilli())
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "host cluster kubeconfig")
	nodeName := flag.String("node", "vk-baseline", "virtual node name")
	internalIP := flag.String("internal-ip", "127.0.0.1", "node InternalIP")
	startMs := flag.Int("start-latency-ms", 200, "Pending to Running")
	stopMs := flag.Int("stop-latency-ms", 100, "containers exit this long after a delete")
	qps := flag.Float64("qps", 50, "client QPS")
	burst := flag.Int("burst", 100, "client burst")
	workers := flag.Int("workers", 10, "pod sync workers")
	eventsPath := flag.String("events-file", "", "where to record provider notifications")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	config.QPS, config.Burst = float32(*qps), *burst
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("client: %v", err)
	}
	events := &eventLog{}
	if *eventsPath != "" {
		if events.file, err = os.OpenFile(*eventsPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			fail("events file: %v", err)
		}
	}
	provider := newSimProvider(time.Duration(*startMs)*time.Millisecond, time.Duration(*stopMs)*time.Millisecond, *internalIP, events)

	vk, err := nodeutil.NewNode(*nodeName, func(cfg nodeutil.ProviderConfig) (nodeutil.Provider, node.NodeProvider, error) {
		describeNode(cfg.Node, *internalIP)
		return provider, provider, nil
	}, nodeutil.WithClient(client), func(c *nodeutil.NodeConfig) error {
		c.NumWorkers = *workers
		c.HTTPListenAddr = "127.0.0.1:0" // no TLS config: virtual-kubelet starts no HTTP server
		return nil
	})
	if err != nil {
		fail("node: %v", err)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	faults := make(chan os.Signal, 4)
	signal.Notify(faults, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for s := range faults {
			provider.setFailing(s == syscall.SIGUSR2)
		}
	}()
	go func() {
		if err := vk.WaitReady(ctx, 2*time.Minute); err == nil {
			fmt.Println("vk-baseline: ready")
		}
	}()
	if err := vk.Run(ctx); err != nil && ctx.Err() == nil {
		fail("run: %v", err)
	}
}

// describeNode gives the node what Tether's simulated node reports: capacity, address, Ready.
func describeNode(n *corev1.Node, ip string) {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("20"),
		corev1.ResourceMemory: resource.MustParse("100Gi"),
		corev1.ResourcePods:   resource.MustParse("10000"),
	}
	n.Status.Capacity, n.Status.Allocatable = capacity, capacity.DeepCopy()
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}
	n.Status.Phase = corev1.NodeRunning
	now := metav1.Now()
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		c.Status, c.LastHeartbeatTime, c.LastTransitionTime = corev1.ConditionFalse, now, now
		if c.Type == corev1.NodeReady {
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, "KubeletReady", "Kubelet is ready"
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "vk-baseline: "+format+"\n", args...)
	os.Exit(1)
}
