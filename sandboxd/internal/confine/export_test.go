package confine

// What the tests of package confine_test reach inside a Root for.

// MaxLinks is how many links Resolve crosses before it refuses.
const MaxLinks = maxLinks

// ForceWalk makes b take the walk (walk) or openat2 (!walk) and reports whether it walked
// before: the tests prove both ways to the workspace on one kernel.
func ForceWalk(b *Root, walk bool) (walked bool) {
	walked, b.walk = b.walk, walk
	return walked
}
