package steps

// TestHub is testHub for the package's external tests.
var TestHub = testHub
