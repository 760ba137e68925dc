// The second jest project: every harness-based HTTP test again, on the default store opened as `svc serve` opens it.
process.env.SVC_TEST_STORE = 'sqlite';
