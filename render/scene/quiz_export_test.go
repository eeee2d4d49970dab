package scene

// CaptionNow is the caption strip's lines now (the lesson's, the
// question's state, or its verdict).
func (s *Session) CaptionNow() []string { return s.caption }
