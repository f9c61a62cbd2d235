"""Word lists: English function words, and the subsets and additions search, the extractive
generator and the verifier each use (each says why it differs)."""

from __future__ import annotations

from types import MappingProxyType

# English function words: articles, pronouns, prepositions, conjunctions, auxiliaries, modals,
# quantifiers and negations. docbot's one list: search, the extractive generator and the verifier
# each derive their own set from it, and say why theirs differs.
_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each either every few for
from further had has have having he her here hers him his how i if in into is it its itself just
me might more most much must my no nor not now of off on once only or other our ours out over own
same shall she should so some such than that the their theirs them then there these they this
those through to too under until up upon us very via was we were what when where whether which
while who whom whose why will with within without would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Search drops only the commonest function words, which costs no recall and shortens the posting
# lists a query walks (most of tantivy's latency at 100k, docs/performance-retrieval.md). It keeps
# these:
# dropping them too measured worse on SQuAD v1.1 dev with bm25 (recall@1 0.780 -> 0.778,
# recall@5 0.933 -> 0.932), so prepositions, quantifiers and negations ("before", "only", "not")
# still tell questions apart.
_SEARCH_KEEPS_TEXT = """
    about above after again against all also am any because before below between both done down
    during each either every few further here just might more most much must no nor not now off
    once only other out over own same shall some such through under until up upon us very via
    whether whose within without
"""
SEARCH_STOPWORDS = STOPWORDS - frozenset(_SEARCH_KEEPS_TEXT.split())
# Words that turn a statement around: "does not retry" shares every other word with "retries".
NEGATIONS = frozenset(("not", "no", "never", "cannot", "none", "nor", "without"))

# The extractive generator matches a question against answer units, so besides function words it
# drops the verbs and politeness a question wraps around what it asks ("how do I get", "I need to
# use", "please"): matched against the evidence they would only add noise.
_QUESTION_FILLERS = "get gets got let like made need please want way use used using"
# Question words and function words of other languages docbot's users write in. Only words that
# are not also English content words: German "die", "war", "man" or "hat" stay, since an English
# question about when someone died must keep "die".
_FOREIGN_FUNCTION_WORDS = """
    der das des dem und ist sind ich wie kann können wo wer welche welcher welches warum wann
    ein eine einen einem einer mit für auf zu im ins vom zum zur bei oder nicht kein keine sich
    wir ihr es mich mir wird werden wurde habe haben soll sollte muss müssen
    как что где когда почему зачем какой какая какие каком который я мне мы вы ты он она они
    это этот эта в во на с со к ко по о об от для из и или но а не ли же бы можно нужно чтобы
"""
QUESTION_STOPWORDS = (
    STOPWORDS | frozenset(_QUESTION_FILLERS.split()) | frozenset(_FOREIGN_FUNCTION_WORDS.split())
)
# Spanish function words. The extractive generator reads two of them in a question as a question
# written in Spanish (and never makes them anchors); the verifier counts them against English
# function words to tell a claim's language from its evidence's. Written by hand, not fit; "uso"
# ("I use") is the Spanish of the English fillers' "use", and is also in dj40, a train question.
_SPANISH_TEXT = """
    el la los las lo de del al en por para con un una unos es son y o que qué cómo como cuál
    cual se mi mis su sus me yo tu uso hay está este esta
"""
SPANISH_WORDS = frozenset(_SPANISH_TEXT.split())
# Chinese and Japanese question words and particles: a run of CJK text is split at them before
# its bigrams are taken, so "如何回滚部署" asks about 回滚部署 and not about 如何 or 何回.
_CJK_FUNCTION_TEXT = """
    为什么 為什麼 怎么样 怎麼樣 如何 怎么 怎麼 怎样 怎樣 什么 什麼 哪里 哪裡 哪些 哪个 哪個 是否
    请问 請問 能否 可以 我们 我們 吗 嗎 呢 吧 的 了 我 你 どうやって どうすれば ですか ますか
"""
CJK_FUNCTION_WORDS = tuple(_CJK_FUNCTION_TEXT.split())

# Shorthands people type in questions for the words documentation spells out ("the docs do not
# say" vs "the documentation does not cover"). Applied to evidence and question alike, so it
# only ever joins two spellings of one word.
SHORTHANDS = MappingProxyType(
    {
        "arg": "argument",
        "args": "arguments",
        "auth": "authentication",
        "config": "configuration",
        "configs": "configuration",
        "db": "database",
        "dir": "directory",
        "dirs": "directories",
        "doc": "documentation",
        "docs": "documentation",
        "env": "environment",
        "info": "information",
        "param": "parameter",
        "params": "parameters",
        "repo": "repository",
        "repos": "repositories",
    }
)

# The verifier's stopwords: words a claim may add without the evidence holding them. Not the
# negations and words that state a fact of their own ("must", "only", "every"): a claim that adds
# one says more than its evidence. "without" stays a stopword here because the verifier's
# negation window checks it anyway.
_STATES_A_FACT = frozenset(
    ("no", "nor", "not", "against", "every", "much", "might", "must", "only")
)
# Filler verbs a paraphrase adds ("use X to ..."): they carry no fact of their own.
_FILLER_VERBS = frozenset(("use", "uses", "used", "using"))
# Connectives a paraphrase joins its sentences with ("..., since the suite spawns ..."): the
# shared list leaves them to search, where they are rare enough to tell questions apart.
_CONNECTIVES = frozenset(("since", "although", "though", "whereas", "hence", "thus", "therefore"))
CLAIM_STOPWORDS = (STOPWORDS - _STATES_A_FACT) | _FILLER_VERBS | _CONNECTIVES

# The gate before the generator (grounding/gate.py) weighs a question's terms by how rare they
# are in the scope, so a term that is only grammar must not count: a small collection may hold
# no "anything" or "don" at all, which would make the question look far from it. It drops the
# function words, the pieces contractions split into ("don't" -> don, t) and indefinite
# pronouns.
_GATE_EXTRA_TEXT = """
    aren couldn didn doesn don hadn hasn haven isn ll mustn re shan shouldn ve wasn weren won
    wouldn anything anyone anybody something someone somebody nothing everything everyone
"""
GATE_STOPWORDS = STOPWORDS | frozenset(_GATE_EXTRA_TEXT.split())
