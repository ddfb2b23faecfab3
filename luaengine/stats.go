package luaengine

// Scripts returns how many scripts the cache holds (INFO's
// number_of_cached_scripts).
func (e *Engine) Scripts() int { return len(e.scripts) }
