package oauth

// OnIssuing makes f run before each access token the service mints, while
// its token request is under way.
func OnIssuing(s *Service, f func()) { s.strategy.issuing = f }
