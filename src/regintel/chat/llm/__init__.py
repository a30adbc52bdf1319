"""The LLM engine: the chat engine steps over a chat model, the offline engine as fallback."""
