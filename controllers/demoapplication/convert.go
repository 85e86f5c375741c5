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
