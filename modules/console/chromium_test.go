package console_test

import (
	"testing"

	"platform/test/testenv"
)

func inChromium(t *testing.T, p *testenv.Platform) {}
