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

package demoapplication

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cmft/demo-operator/controllers/wellknown"
)

// This file is the DemoApplication controller's apply and ownership machinery: how an
// object it needs is read, compared, applied or deleted, never touching one it does not own.
// It raises no Event and keeps no record: it returns what it did, which the steps note in
// the scope.

// conflictError says that an object the DemoApplication needs is held by someone else.
type conflictError struct {
	kind, name string
	// holder says whose it is: its controller, else the field managers that wrote it.
	holder string
	// held is the object, for the Event to name it.
	held client.Object
}

// newConflict returns the conflictError of obj, whose name is taken by someone else.
func newConflict(kind string, obj client.Object) *conflictError {
	return &conflictError{kind: kind, name: obj.GetName(), holder: holderOf(obj), held: obj}
}

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %q already exists and is not the operator's: it is %s", e.kind, e.name, e.holder)
}

// holderOf says who holds obj, for a user to find it: its controller, else who wrote it.
func holderOf(obj metav1.Object) string {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return fmt.Sprintf("controlled by %s %q", ref.Kind, ref.Name)
	}
	var managers []string
	for _, f := range obj.GetManagedFields() {
		if m := strconv.Quote(f.Manager); !slices.Contains(managers, m) {
			managers = append(managers, m)
		}
	}
	if len(managers) == 0 {
		return "controlled by no one"
	}
	return "controlled by no one, written by " + strings.Join(managers, ", ")
}

// applyError is a refusal by the API server of an object the DemoApplication owns.
type applyError struct {
	kind, name string
	err        error
}

func (e *applyError) Error() string { return fmt.Sprintf("applying %s: %v", e.kind, e.err) }
func (e *applyError) Unwrap() error { return e.err }

// outcome is what apply or delete did to an object, and whether current holds it after.
type outcome int

const (
	// absent: current does not hold the object; owner has none, or it could not be read.
	absent outcome = iota
	// unchanged: the object exists and was not written.
	unchanged
	// created, updated: apply created the object, or brought it back to the desired fields;
	// current holds it.
	created
	updated
	// deleted: delete deleted the object.
	deleted
)

// apply makes the object named like current (the app's, or one of its pods', by owner)
// match desired and reads it into current. It writes nothing when the fields the operator
// owns already hold the desired values, and never touches an object that owner does not
// control.
func (r *Reconciler) apply(ctx context.Context, owner metav1.Object, current client.Object, desired runtime.ApplyConfiguration) (outcome, error) {
	kind := r.kindOf(current)
	key := client.ObjectKeyFromObject(current)
	exists, err := r.getOwned(ctx, owner, key, current)
	if err != nil {
		return absent, err
	}
	if exists {
		same, err := settled(current, desired)
		if err != nil {
			return unchanged, fmt.Errorf("reading the fields of %s %s the operator owns: %w", kind, key, err)
		}
		if same {
			return unchanged, nil
		}
	}

	// The cache only holds objects labelled as managed by the operator, so a name it does
	// not hold may still be taken. Rather than read it first (a GET per new object), apply it
	// only if it is free: an apply carrying a resourceVersion creates the object when none
	// exists and, when one does, is refused (409) unless that is its resourceVersion, which
	// no object's is. Only a refusal asks whose the object is.
	// So too a name the cache holds as ours may since have been freed and taken by someone
	// else's object, before the cache saw it: the apply names the uid read, which the API
	// server refuses to change (422) if the object of that name is now another.
	create := !exists
	if create {
		precondition(desired, "", unmatchedResourceVersion)
	} else {
		precondition(desired, current.GetUID(), "")
	}
	err = r.Apply(ctx, desired, client.FieldOwner(wellknown.FieldManager), client.ForceOwnership)
	if !create && replaced(err) {
		// Not a refusal of the spec: the next pass reads the cache again.
		return absent, fmt.Errorf("%s %s was replaced since the cache read it: %s", kind, key, err.Error())
	}
	if create && apierrors.IsConflict(err) {
		create = false
		if err := r.ownUncached(ctx, owner, current, err); err != nil {
			return absent, err
		}
		// Ours, but not yet (or no longer) labelled for the cache: applying relabels it.
		precondition(desired, "", "")
		err = r.Apply(ctx, desired, client.FieldOwner(wellknown.FieldManager), client.ForceOwnership)
	}
	if err != nil {
		o := absent
		if exists {
			o = unchanged
		}
		return o, &applyError{kind: kind, name: key.Name, err: err}
	}
	ctrl.LoggerFrom(ctx).V(1).Info("applied", "kind", kind, "name", key.Name, "created", create)
	// Apply filled desired with the API server's answer: the object as it now stands.
	convert(desired, current)
	if create {
		return created, nil
	}
	return updated, nil
}

// unmatchedResourceVersion is a resourceVersion no object has: resourceVersions are
// revisions of the store, which never count this far.
const unmatchedResourceVersion = "18446744073709551615"

// precondition makes an apply of desired conditional on the object's uid and
// resourceVersion, each when not empty.
func precondition(desired runtime.ApplyConfiguration, uid types.UID, rv string) {
	var u *types.UID
	var version *string
	if uid != "" {
		u = &uid
	}
	if rv != "" {
		version = &rv
	}
	// Every generated apply configuration embeds its object's metadata.
	m := reflect.ValueOf(desired).Elem().FieldByName("ObjectMetaApplyConfiguration").Interface().(*metav1ac.ObjectMetaApplyConfiguration)
	m.UID, m.ResourceVersion = u, version
}

// replaced reports whether err is the API server's refusal of an apply whose uid is not the
// object's: the object was deleted and another made under its name.
func replaced(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	for _, cause := range status.Status().Details.Causes {
		if cause.Field == "metadata.uid" {
			return true
		}
	}
	return false
}

// getOwned reads the object of key from the cache into obj. It reports false when the
// cache has none, and a conflictError when it has one that owner does not control.
func (r *Reconciler) getOwned(ctx context.Context, owner metav1.Object, key client.ObjectKey, obj client.Object) (bool, error) {
	kind := r.kindOf(obj)
	if err := r.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	if !metav1.IsControlledBy(obj, owner) {
		return false, newConflict(kind, obj)
	}
	return true, nil
}

// ownUncached reads, as metadata, the object named like obj whose existence refused a
// create-only apply (refused). It returns nil when owner controls it, and a conflictError
// when it does not. The object is outside the cache: only the API server knows it.
func (r *Reconciler) ownUncached(ctx context.Context, owner metav1.Object, obj client.Object, refused error) error {
	kind, key := r.kindOf(obj), client.ObjectKeyFromObject(obj)
	gvk, err := r.GroupVersionKindFor(obj)
	if err != nil {
		return err
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(gvk)
	if err := r.APIReader.Get(ctx, key, meta); err != nil {
		if apierrors.IsNotFound(err) {
			// Gone since: the next pass creates it.
			return fmt.Errorf("creating %s %s: %w", kind, key, refused)
		}
		return fmt.Errorf("getting %s %s: %w", kind, key, err)
	}
	if !metav1.IsControlledBy(meta, owner) {
		return newConflict(kind, meta)
	}
	return nil
}

// deleteOwned deletes the object named like obj if owner controls it.
func (r *Reconciler) deleteOwned(ctx context.Context, owner metav1.Object, obj client.Object) (outcome, error) {
	if err := r.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return absent, client.IgnoreNotFound(err)
	}
	if !metav1.IsControlledBy(obj, owner) {
		return unchanged, nil
	}
	return r.delete(ctx, obj)
}

// delete deletes obj, unless it was replaced since it was read.
func (r *Reconciler) delete(ctx context.Context, obj client.Object) (outcome, error) {
	uid := obj.GetUID()
	if err := r.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) {
			return absent, nil
		}
		return unchanged, err
	}
	return deleted, nil
}

// settled reports whether the fields of obj that the operator owns hold desired: whether
// applying it would change nothing.
func settled(obj client.Object, desired runtime.ApplyConfiguration) (bool, error) {
	owned, err := ownedFields(obj)
	if err != nil {
		return false, err
	}
	return equality.Semantic.DeepEqual(owned, desired), nil
}

// ownedFields returns the fields of obj that the operator owns, in the form of the apply
// configuration it applies, to compare with the desired one.
func ownedFields(obj client.Object) (any, error) {
	o := ownedBy(obj)
	if o == nil {
		return nil, fmt.Errorf("no apply configuration for %T", obj)
	}
	return o.extract(obj)
}

// kindOf names the kind of a typed object, for messages.
func (r *Reconciler) kindOf(obj client.Object) string {
	gvk, err := r.GroupVersionKindFor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}
