package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// simProvider mirrors Tether's SimulatedProvider (src/providers/simulated): a pod is Pending
// (ContainerCreating) at once, Running after startLatency, and on deletion ends after
// stopLatency (exit 0, Completed) or at once if it never started (137, Error). Every status
// change is notified asynchronously, in order, with a deep copy.
type simProvider struct {
	startLatency time.Duration
	stopLatency  time.Duration
	hostIP       string

	mu      sync.Mutex
	pods    map[string]*simPod
	nextIP  netip.Addr
	notify  func(*corev1.Pod)
	queue   chan *corev1.Pod
	failing bool
	events  *eventLog
}

type simPod struct {
	pod     *corev1.Pod
	stage   string // starting, running, stopping, ended
	timer   *time.Timer
	podIP   string
	started time.Time
}

func newSimProvider(startLatency, stopLatency time.Duration, hostIP string, events *eventLog) *simProvider {
	p := &simProvider{
		startLatency: startLatency,
		stopLatency:  stopLatency,
		hostIP:       hostIP,
		pods:         map[string]*simPod{},
		nextIP:       netip.MustParseAddr("10.244.0.1"),
		queue:        make(chan *corev1.Pod, 1<<17),
		events:       events,
	}
	go p.deliver()
	return p
}

func key(ns, name string) string { return ns + "/" + name }

// deliver hands notifications to the pod controller one at a time, in the order they were made
// (the callback may block while the controller learns about a new pod).
func (p *simProvider) deliver() {
	for pod := range p.queue {
		p.mu.Lock()
		cb := p.notify
		p.mu.Unlock()
		if cb != nil {
			cb(pod)
		}
	}
}

// emit must be called with mu held.
func (p *simProvider) emit(r *simPod) {
	copied := r.pod.DeepCopy()
	if copied.Status.Phase == corev1.PodRunning {
		p.events.record(copied, "running")
	}
	p.queue <- copied
}

func (p *simProvider) NotifyPods(_ context.Context, cb func(*corev1.Pod)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notify = cb
}

func (p *simProvider) CreatePod(_ context.Context, pod *corev1.Pod) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	if existing, ok := p.pods[k]; ok {
		if existing.pod.UID == pod.UID {
			return nil
		}
		return fmt.Errorf("pod %s with another uid is still present", k)
	}
	now := time.Now()
	r := &simPod{pod: pod.DeepCopy(), stage: "starting", podIP: p.nextIP.String(), started: now}
	p.nextIP = p.nextIP.Next()
	r.pod.Status = pendingStatus(r.pod, p.hostIP, now)
	p.pods[k] = r
	p.emit(r)
	r.timer = time.AfterFunc(p.startLatency, func() { p.start(k, r) })
	return nil
}

func (p *simProvider) start(k string, r *simPod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pods[k] != r || r.stage != "starting" {
		return
	}
	r.stage = "running"
	r.pod.Status = runningStatus(r.pod, p.hostIP, r.podIP, r.started, time.Now())
	p.emit(r)
}

func (p *simProvider) UpdatePod(_ context.Context, pod *corev1.Pod) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.pods[key(pod.Namespace, pod.Name)]
	if !ok {
		return errdefs.NotFoundf("pod %s/%s not found", pod.Namespace, pod.Name)
	}
	status := r.pod.Status
	r.pod = pod.DeepCopy()
	r.pod.Status = status
	return nil
}

func (p *simProvider) DeletePod(_ context.Context, pod *corev1.Pod) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	r, ok := p.pods[k]
	if !ok || r.pod.UID != pod.UID {
		return errdefs.NotFoundf("pod %s not found", k)
	}
	switch r.stage {
	case "ended":
		p.emit(r)
		delete(p.pods, k)
	case "starting":
		r.timer.Stop()
		p.end(r, 137, "Error")
		delete(p.pods, k)
	case "running":
		r.stage = "stopping"
		r.timer = time.AfterFunc(p.stopLatency, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.pods[k] != r {
				return
			}
			p.end(r, 0, "Completed")
			delete(p.pods, k)
		})
	}
	return nil
}

// end must be called with mu held.
func (p *simProvider) end(r *simPod, exitCode int32, reason string) {
	r.stage = "ended"
	r.pod.Status = terminatedStatus(r.pod, exitCode, reason, time.Now())
	p.emit(r)
}

func (p *simProvider) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.pods[key(ns, name)]
	if !ok {
		return nil, errdefs.NotFoundf("pod %s/%s not found", ns, name)
	}
	return r.pod.DeepCopy(), nil
}

func (p *simProvider) GetPodStatus(ctx context.Context, ns, name string) (*corev1.PodStatus, error) {
	pod, err := p.GetPod(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

func (p *simProvider) GetPods(context.Context) ([]*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(p.pods))
	for _, r := range p.pods {
		out = append(out, r.pod.DeepCopy())
	}
	return out, nil
}

var errUnsupported = errors.New("not supported by the benchmark's in-memory provider")

func (p *simProvider) GetContainerLogs(context.Context, string, string, string, api.ContainerLogOpts) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader("")), nil
}
func (p *simProvider) RunInContainer(context.Context, string, string, string, []string, api.AttachIO) error {
	return errUnsupported
}
func (p *simProvider) AttachToContainer(context.Context, string, string, string, api.AttachIO) error {
	return errUnsupported
}
func (p *simProvider) GetStatsSummary(context.Context) (*statsv1alpha1.Summary, error) {
	return &statsv1alpha1.Summary{}, nil
}
func (p *simProvider) GetMetricsResource(context.Context) ([]*dto.MetricFamily, error) {
	return nil, nil
}
func (p *simProvider) PortForward(context.Context, string, string, int32, io.ReadWriteCloser) error {
	return errUnsupported
}

// Ping fails while the benchmark simulates an outage (SIGUSR2 toggles it).
func (p *simProvider) Ping(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failing {
		return errors.New("simulated provider is unhealthy: ping failures are injected")
	}
	return nil
}

func (p *simProvider) NotifyNodeStatus(context.Context, func(*corev1.Node)) {}

func (p *simProvider) setFailing(failing bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failing = failing
}

// --- statuses, as Tether's podLifecycle.ts builds them ------------------------------------------

func condition(t corev1.PodConditionType, ok bool, at time.Time, reason string) corev1.PodCondition {
	status := corev1.ConditionFalse
	if ok {
		status = corev1.ConditionTrue
	}
	return corev1.PodCondition{Type: t, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(at)}
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func pendingStatus(pod *corev1.Pod, hostIP string, now time.Time) corev1.PodStatus {
	containers := make([]corev1.ContainerStatus, 0, len(pod.Spec.Containers))
	for _, c := range pod.Spec.Containers {
		containers = append(containers, corev1.ContainerStatus{Name: c.Name, Image: c.Image, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}})
	}
	start := metav1.NewTime(now)
	return corev1.PodStatus{
		Phase:     corev1.PodPending,
		HostIP:    hostIP,
		HostIPs:   []corev1.HostIP{{IP: hostIP}},
		StartTime: &start,
		QOSClass:  pod.Status.QOSClass,
		Conditions: []corev1.PodCondition{
			condition("PodReadyToStartContainers", false, now, ""),
			condition(corev1.PodInitialized, true, now, ""),
			condition(corev1.ContainersReady, false, now, "ContainersNotReady"),
			condition(corev1.PodReady, false, now, "ContainersNotReady"),
		},
		ContainerStatuses: containers,
	}
}

func runningStatus(pod *corev1.Pod, hostIP, podIP string, started, now time.Time) corev1.PodStatus {
	containers := make([]corev1.ContainerStatus, 0, len(pod.Spec.Containers))
	yes := true
	for _, c := range pod.Spec.Containers {
		containers = append(containers, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: strings.SplitN(c.Image, ":", 2)[0] + "@sha256:" + digest(c.Image),
			ContainerID: "simulated://" + digest(string(pod.UID)+"/"+c.Name+"/0"), Ready: true, Started: &yes,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now)}},
		})
	}
	start := metav1.NewTime(started)
	return corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    hostIP,
		HostIPs:   []corev1.HostIP{{IP: hostIP}},
		PodIP:     podIP,
		PodIPs:    []corev1.PodIP{{IP: podIP}},
		StartTime: &start,
		QOSClass:  pod.Status.QOSClass,
		Conditions: []corev1.PodCondition{
			condition("PodReadyToStartContainers", true, now, ""),
			condition(corev1.PodInitialized, true, now, ""),
			condition(corev1.ContainersReady, true, now, ""),
			condition(corev1.PodReady, true, now, ""),
		},
		ContainerStatuses: containers,
	}
}

func terminatedStatus(pod *corev1.Pod, exitCode int32, reason string, now time.Time) corev1.PodStatus {
	status := *pod.Status.DeepCopy()
	phase := corev1.PodSucceeded
	if exitCode != 0 {
		phase = corev1.PodFailed
	}
	status.Phase = phase
	for i := range status.ContainerStatuses {
		cs := &status.ContainerStatuses[i]
		startedAt := metav1.NewTime(now)
		if cs.State.Running != nil {
			startedAt = cs.State.Running.StartedAt
		}
		no := false
		cs.Ready, cs.Started = false, &no
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason, StartedAt: startedAt, FinishedAt: metav1.NewTime(now), ContainerID: cs.ContainerID}}
	}
	for i := range status.Conditions {
		c := &status.Conditions[i]
		if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady || c.Type == "PodReadyToStartContainers" {
			if c.Status != corev1.ConditionFalse {
				c.Status, c.LastTransitionTime = corev1.ConditionFalse, metav1.NewTime(now)
			}
			c.Reason = "PodCompleted"
		}
	}
	return status
}
