"""A count of the claim's own list counts the list only when the quoted evidence lists no more:
"two formats: `zip` and `tar`" of "zip, tar or gztar" counts a part of a longer list. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

ARCHIVES = "The packer writes zip, tar or gztar archives."
VERSIONS = 'print(reply.protocol)  # "P/1.0", "P/1.1", or "P/2".'


def test_a_count_of_a_part_of_the_quoted_list_is_dropped() -> None:
    dropped("The packer writes two kinds of archives: zip and tar.", ARCHIVES)
    dropped('The reply gives one of two protocols: "P/1.1" or "P/2".', VERSIONS)


def test_a_count_of_the_whole_quoted_list_is_kept() -> None:
    kept("The packer writes three kinds of archives: zip, tar and gztar.", ARCHIVES)
    kept('The reply gives one of three protocols: "P/1.0", "P/1.1" or "P/2".', VERSIONS)
