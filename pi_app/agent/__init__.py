"""The agent core (pi's "pi-agent-core"): the stateless loop and the stateful Agent."""
