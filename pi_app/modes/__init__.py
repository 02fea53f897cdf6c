"""Non-interactive front ends of an AgentSession: print (text), json event stream and JSONL RPC.

Nothing here imports Textual. Import the submodules directly (``pi_app.modes.rpc_mode``); this package
stays empty so that importing it costs nothing.
"""
