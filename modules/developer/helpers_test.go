package developer_test

import "context"

func bg() context.Context { return context.Background() }
