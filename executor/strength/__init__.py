"""Test strength: mutants of the lines a session changed, run against its tests
(`mutants` makes them, `runner` runs them in a copy of the tested tree with the pytest
plugin `mutation`, `stryker` runs Stryker's for JavaScript/TypeScript, the program
`program` pins). docs/test-strength.md says what is measured and why it is our own code."""
