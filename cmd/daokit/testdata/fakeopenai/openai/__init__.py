"""A stand-in for the openai package: a deterministic model that answers
every chat completion with one fixed JSON object and no tool calls, so the
real DAOKit LLM dispatch path runs without a network."""
from types import SimpleNamespace

ANSWER = '{"task_type": "feature", "complexity": "low", "summary": "add a greeting", "status": "success", "passed": true}'


class _Completions:
    def create(self, **kwargs):
        msg = SimpleNamespace(content=ANSWER, tool_calls=None)
        choice = SimpleNamespace(message=msg, finish_reason="stop")
        usage = SimpleNamespace(prompt_tokens=10, completion_tokens=20, total_tokens=30)
        return SimpleNamespace(choices=[choice], usage=usage, model=kwargs.get("model", "fake"))


class OpenAI:
    def __init__(self, **kwargs):
        self.chat = SimpleNamespace(completions=_Completions())
