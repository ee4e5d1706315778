// Package helm exists only to pin, in go.sum, cert-manager, whose CRD manifests the tests
// install so the chart's Certificate and Issuer can be server-side dry-run applied.
package helm

import (
	_ "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
)
