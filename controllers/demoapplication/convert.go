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
	"encoding/json"
	"fmt"
	"reflect"
)

// convert copies in into out through their shared JSON form: a typed API value and its
// apply configuration are generated from the same definition. Only values without
// non-pointer struct fields go into an apply configuration this way: those would serialise
// as empty objects and claim fields the user never set.
func convert(in, out any) {
	data, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		panic(fmt.Sprintf("converting %T to %T: %v", in, out, err))
	}
}

// converted returns in as a T, through convert: an API value as its apply configuration, or
// back. A nil in gives T's zero value, without the JSON round trip most of a spec's optional
// fields would otherwise cost every reconcile.
func converted[T any](in any) T {
	var out T
	if v := reflect.ValueOf(in); !v.IsValid() || (v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice) && v.IsNil() {
		return out
	}
	convert(in, &out)
	return out
}
