package orchestrator

// Observer watches every run of a session as it happens, for a record
// kept outside lathe (telemetry), whichever UI shows the run. The run
// does not wait for it: what it is given must return at once.
type Observer interface {
	// Run is told that a run of session (its id) begins, with the
	// prompt; the run's events go to event, each after the UI has it,
	// from one goroutine at a time, and done gets how the run ended.
	Run(session, prompt string) (event func(Event), done func(Result, error))
}

// observe hands the run's events to the Observer as well as to emit, and
// returns what to call with the result; without an Observer, emit as it
// is and nothing to call.
func (s *Session) observe(prompt string, emit func(Event)) (func(Event), func(Result, error)) {
	if s.opts.Observer == nil {
		return emit, func(Result, error) {}
	}
	event, done := s.opts.Observer.Run(s.id, prompt)
	return func(e Event) {
		emit(e)
		event(e)
	}, done
}
