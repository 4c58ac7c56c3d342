"""The question and the answer: query and verdict models, free-text questions, the lexicon."""
