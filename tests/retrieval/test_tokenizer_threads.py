"""The tokenizer's memo is shared by every thread that searches or indexes: one thread filling
it past its bound must never take away a word another thread is about to read."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from retrieval.text import Tokenizer

# The bound is the tokenizer's own setting (search's default holds 300,000 tokens, which took
# ~2 s of CPU to overflow): what matters is passing it, whatever it is.
MEMO_SIZE = 64


def test_tokenizer_memo_overflow_in_one_thread_does_not_break_another() -> None:
    # Thread A tokenizes two words and is held inside the second; meanwhile this thread fills
    # the memo past its bound. A shared dict cleared at the bound dropped A's first word before
    # A read it back (KeyError); a bounded lru_cache cannot lose what a caller is computing.
    a_inside = threading.Event()
    filled = threading.Event()
    a_words: list[str] = []

    def stem(word: str) -> str:
        if threading.current_thread().name.startswith("a-"):
            a_words.append(word)
            if len(a_words) == 2:
                a_inside.set()
                assert filled.wait(timeout=60), "the filling thread never finished"
        return word

    tokenizer = Tokenizer(stem=stem, stopwords=frozenset(), memo_size=MEMO_SIZE)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="a-") as pool:
        a_result = pool.submit(tokenizer, "alpha beta")
        assert a_inside.wait(timeout=60), "thread A never reached its second word"
        overflow = " ".join(f"w{i}" for i in range(MEMO_SIZE + 1))
        tokenizer(overflow)
        filled.set()
        assert a_result.result(timeout=60) == ["alpha", "beta"]
    assert tokenizer("alpha beta") == ["alpha", "beta"]
