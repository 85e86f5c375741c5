/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// runClientGoLabeler is the throughput baseline: the least a client-go program must do to
// label every annotated pod as it appears. It watches pods as metadata and sends each
// annotated, unlabelled pod the one merge patch it needs, from `workers` goroutines, with
// no controller framework, predicates or events in between. namespace empty watches all.
func runClientGoLabeler(ctx context.Context, cfg *rest.Config, namespace string, workers int, out *reporter) error {
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	queue := workqueue.NewTyped[types.NamespacedName]()
	defer queue.ShutDown()
	enqueue := func(obj any) {
		pod, ok := obj.(*metav1.PartialObjectMetadata)
		if ok && pod.Annotations[wellknown.DefaultPodLabelAnnotation] == wellknown.OptIn &&
			pod.Labels[wellknown.DefaultPodNameLabel] != pod.Name {
			queue.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
		}
	}
	informer := metadatainformer.NewFilteredSharedInformerFactory(meta, 0, namespace, nil).
		ForResource(corev1.SchemeGroupVersion.WithResource("pods")).Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	go informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return ctx.Err()
	}
	out.send(message{Event: "synced"})
	out.send(message{Event: "elected"})
	out.send(message{Event: "ready"})

	for range workers {
		go func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
					"labels": map[string]string{wellknown.DefaultPodNameLabel: key.Name}}})
				_, err := clientset.CoreV1().Pods(key.Namespace).Patch(ctx, key.Name, types.MergePatchType, patch, metav1.PatchOptions{})
				if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
					queue.Add(key)
				}
				queue.Done(key)
			}
		}()
	}
	<-ctx.Done()
	return nil
}
