package runs

// maxConcurrentExecs is the cap of exec runs per sandbox (the API's POST /exec): fixed, and
// apart from maxConcurrentInvokes, so a person's commands never take an agent's invoke slots
// nor the other way round.
const maxConcurrentExecs = 32
