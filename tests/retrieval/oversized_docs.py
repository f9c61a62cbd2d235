"""Generated documents with one block far over the chunk budget, as the issue found them: a
120-line code block (~3,400 tokens), a 400-row table (~9,000) and a ~147 KB paragraph (~25,000).
Each shares words with a question about the payments webhook's retry limit, but not its answer."""

from __future__ import annotations

# The question, the small file that answers it, and other short files (so that the words the
# big documents share with the question are rare enough to rank them first).
QUESTION = "What is the retry limit of the payments webhook?"
ANSWER_FILE = ("webhooks.md", "# Webhook retries\n\nThe payments webhook retry limit is 7.\n")
OTHER_FILES = {
    "api.md": "# API\n\nThe API rate limit is 50 requests per second.\n",
    "uploads.md": "# Uploads\n\nThe upload size limit is 10 MB per file.\n",
    "sessions.md": "# Sessions\n\nThe session limit is 5 per user.\n",
    "deploy.md": "# Deploys\n\nDeploys go out from the release branch every weekday.\n",
    "oncall.md": "# On-call\n\nThe on-call rota lives in the ops calendar.\n",
    "ledger.md": "# Ledger\n\nThe ledger service keeps balances for each merchant.\n",
}

_TOPIC = ("payments", "webhook", "retry", "queue", "worker", "backoff", "ledger", "event")


def code_lines(count: int = 120) -> list[str]:
    return [
        f"    payments_webhook_retry_{n} = configure_payments_webhook(retry={n % 9}, queue='q{n}', "
        f"worker='w{n % 5}')  # event {n}"
        if n % 6
        else ""
        for n in range(count)
    ]


def table_rows(count: int = 400) -> list[str]:
    return [
        f"| payments-webhook-{n} | retry {n % 13} | queue q{n % 17} worker w{n % 5} |"
        for n in range(count)
    ]


def sentences(size: int = 147_000) -> str:
    out: list[str] = []
    n = length = 0
    while length < size:  # each sentence and the space after it
        words = [_TOPIC[(n * 3 + k) % len(_TOPIC)] for k in range(9)]
        out.append(f"The {' '.join(words)} setting number {n} applies to batch {n % 31}.")
        length += len(out[-1]) + 1
        n += 1
    return " ".join(out)


def markdown_code() -> str:
    body = "\n".join(line.removeprefix("    ") for line in code_lines())
    return f"# Webhook workers\n\nThe generated settings.\n\n```python\n{body}\n```\n\nThe end.\n"


def rest_code() -> str:
    body = "\n".join(code_lines())
    return (
        "Webhook workers\n===============\n\n.. code-block:: python\n   :caption: settings\n\n"
        f"{body}\n\nThe end.\n"
    )


def rest_literal() -> str:
    return "Webhook workers\n===============\n\nThe settings are::\n\n" + "\n".join(code_lines())


def markdown_table() -> str:
    rows = "\n".join(table_rows())
    return f"# Webhook queues\n\n| name | retry | queue |\n|---|---|---|\n{rows}\n"


def rest_simple_table() -> str:
    border = "=================== =============== ========================"
    rows = "\n".join(
        f"payments-webhook-{n:<3} retry-{n % 13:<9} queue-q{n % 17}-worker-w{n % 5}"
        for n in range(400)
    )
    header = "name                retry           queue"
    return f"Webhook queues\n==============\n\n{border}\n{header}\n{border}\n{rows}\n{border}\n"


def rest_grid_table() -> str:
    border = "+---------------------+------------------+---------------------------+"
    head = "+=====================+==================+===========================+"
    lines = [border, "| name                | retry            | queue                     |", head]
    for n in range(400):
        lines.append(
            f"| payments-webhook-{n:<3}| retry-{n % 13:<11}| queue-q{n % 17:<3}worker-w{n % 5:<10}|"
        )
        lines.append(border)
    return "Webhook queues\n==============\n\n" + "\n".join(lines) + "\n"


def markdown_paragraph() -> str:
    return f"# Webhook notes\n\n{sentences()}\n"


def rest_paragraph() -> str:
    return f"Webhook notes\n=============\n\n{sentences()}\n"


def wrapped_paragraph(width: int = 72) -> str:
    """The same paragraph over many lines, as an editor wraps it."""
    lines, line = [], ""
    for word in sentences().split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line]) + "\n"


def rest_list_table() -> str:
    rows = "".join(
        f"   * - payments-webhook-{n}\n     - retry {n % 13}\n"
        f"     - queue q{n % 17} worker w{n % 5}\n"
        for n in range(400)
    )
    head = "   * - name\n     - retry\n     - queue\n"
    return (
        "Webhook queues\n==============\n\n.. list-table:: Queues\n   :header-rows: 1\n\n"
        f"{head}{rows}"
    )


def rest_csv_table() -> str:
    rows = "".join(f"   payments-webhook-{n}, {n % 13}, q{n % 17} w{n % 5}\n" for n in range(400))
    return (
        'Webhook queues\n==============\n\n.. csv-table:: Queues\n   :header: "name", "retry"'
        f', "queue"\n\n{rows}'
    )


def markdown_indented_code() -> str:
    return "# Webhook workers\n\nThe generated settings:\n\n" + "\n".join(code_lines()) + "\n"
