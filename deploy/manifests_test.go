// Package deploy holds specrun's deployment manifests and the test that
// they are what the Kubernetes API accepts. It is a module of its own so
// that the Kubernetes API types stay out of specrun's dependencies.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes a manifest into v, refusing unknown and duplicate
// fields: a misspelt field would otherwise be dropped without a word.
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestConfigMapHoldsTheSpecAndStart(t *testing.T) {
	var cm corev1.ConfigMap
	decodeStrict(t, "configmap.yaml", &cm)
	if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
		t.Errorf("kind %s, apiVersion %s", cm.Kind, cm.APIVersion)
	}
	for _, key := range []string{"load.hcl", "start-at"} {
		if cm.Data[key] == "" {
			t.Errorf("no %s in the ConfigMap", key)
		}
	}
}

func TestJobsAreIndexedAndRunSpecrun(t *testing.T) {
	var cm corev1.ConfigMap
	decodeStrict(t, "configmap.yaml", &cm)
	for _, c := range []struct {
		file    string
		sharded bool
	}{{"job.yaml", true}, {"fleet-job.yaml", false}} {
		var job batchv1.Job
		decodeStrict(t, c.file, &job)
		if job.Kind != "Job" || job.APIVersion != "batch/v1" {
			t.Errorf("%s: kind %s, apiVersion %s", c.file, job.Kind, job.APIVersion)
		}
		s := job.Spec
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: completionMode is not Indexed", c.file)
		}
		if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
			t.Errorf("%s: completions and parallelism must be set and equal, so that all pods run at once", c.file)
		}
		pod := s.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q: a rerun shard would load the target twice", c.file, pod.RestartPolicy)
		}
		if len(pod.Containers) != 1 {
			t.Fatalf("%s: %d containers", c.file, len(pod.Containers))
		}
		args := strings.Join(pod.Containers[0].Args, " ")
		if !strings.HasPrefix(args, "run ") || !strings.Contains(args, "--result=-") {
			t.Errorf("%s: args %q do not run specrun with --result=-", c.file, args)
		}
		if strings.Contains(args, "--shard") != c.sharded {
			t.Errorf("%s: args %q, sharded = %v", c.file, args, c.sharded)
		}
		if c.sharded {
			want := "--shard=$(SHARD)/" + itoa(*s.Completions)
			if !strings.Contains(args, want) {
				t.Errorf("%s: args %q lack %s: the N of --shard must be the completions", c.file, args, want)
			}
			var index bool
			for _, e := range pod.Containers[0].Env {
				if e.Name == "SHARD" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
					e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
					index = true
				}
			}
			if !index {
				t.Errorf("%s: SHARD does not come from the completion index", c.file)
			}
		}
		var mounted bool
		for _, v := range pod.Volumes {
			if v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("%s: the ConfigMap %s is not mounted", c.file, cm.Name)
		}
	}
}

func itoa(n int32) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestKubectlAcceptsTheManifests is kubectl's own client-side check, where
// kubectl is installed. kubectl maps a manifest's kind to its resource by
// asking a cluster's discovery API, even with --dry-run=client, so without
// a reachable cluster the test says so and skips.
func TestKubectlAcceptsTheManifests(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl")
	}
	if out, err := exec.Command(kubectl, "api-resources", "--request-timeout=3s", "-o", "name").CombinedOutput(); err != nil {
		t.Skipf("kubectl reaches no cluster, which --dry-run=client still asks for kinds: %v\n%s", err, firstLine(out))
	}
	for _, f := range []string{"configmap.yaml", "job.yaml", "fleet-job.yaml"} {
		cmd := exec.Command(kubectl, "create", "--dry-run=client", "--validate=false", "-o", "name", "-f", filepath.Join("k8s", f))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("kubectl create --dry-run=client -f %s: %v\n%s", f, err, out.String())
		}
	}
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}
