"""Counts in a Spanish or Chinese claim of English evidence: "tres conexiones", "三个连接". Such
a claim shares no words with its quote to anchor a number to, so its numbers were checked for
presence only, and "El cliente abre tres conexiones" was kept of "The client opens two
connections and retries three times". A small table of the nouns documentation counts (units of
time, steps, tries, connections, requests, arguments, ...) names what such a count counts in
English, so the count is checked as an English one is: the quote must not count those nouns
with other numbers only (bindings.binding_problem). A noun outside the table is checked as
before. Set by hand from what documentation counts, not fit on any claim."""

from __future__ import annotations

import re
import unicodedata
from types import MappingProxyType

from grounding.verification.numbers import (
    CHINESE_MEASURES,
    chinese_in_digits,
    spanish_number_before,
)

# Spanish nouns, singular and plural, without accents, and the English nouns they are (more
# than one where English has synonyms: a quote's count of either is the count).
_SPANISH_TABLE = """
    segundo segundos: seconds | milisegundo milisegundos: milliseconds | minuto minutos: minutes
    hora horas: hours | dia dias: days | semana semanas: weeks | mes meses: months
    ano anos: years | paso pasos: steps | vez veces: times | intento intentos: attempts tries
    reintento reintentos: retries | conexion conexiones: connections
    peticion peticiones solicitud solicitudes: requests | respuesta respuestas: responses
    argumento argumentos: arguments parameters | parametro parametros: parameters arguments
    valor valores: values | elemento elementos: elements items | forma formas manera maneras: ways
    tipo tipos clase clases: types kinds | opcion opciones: options | byte bytes: bytes
    archivo archivos fichero ficheros: files | linea lineas: lines | metodo metodos: methods
    version versiones: versions | cliente clientes: clients | servidor servidores: servers
    consulta consultas: queries | migracion migraciones: migrations | proceso procesos: processes
    hilo hilos: threads | nivel niveles: levels | campo campos: fields
    caracter caracteres: characters
"""
# Chinese nouns and the measure words that are units themselves ("30秒", "三次", "两种").
_CHINESE_TABLE = """
    毫秒: milliseconds | 秒: seconds | 分钟: minutes | 小时: hours | 天: days | 周: weeks
    月: months | 年: years | 步骤 步: steps | 次: times | 种 类: kinds types
    连接: connections | 请求: requests | 响应: responses | 参数: parameters arguments
    值: values | 元素: elements items | 方式: ways | 方法: methods | 选项: options | 字节: bytes
    文件: files | 行: lines | 版本: versions | 客户端: clients | 服务器: servers
    查询: queries | 迁移: migrations | 进程: processes | 线程: threads | 级别: levels
    字段: fields | 字符: characters | 重试: retries
"""


def _table(text: str) -> MappingProxyType[str, str]:
    """Each word of a table's entries ("words: english", one a line or parted by "|") with its
    English nouns."""
    table: dict[str, str] = {}
    for entry in re.split(r"[|\n]", text.strip()):
        words, english = entry.split(":")
        for word in words.split():
            table[word] = english.strip()
    return MappingProxyType(table)


_SPANISH = _table(_SPANISH_TABLE)
_CHINESE = _table(_CHINESE_TABLE)
_WORD = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+")
_CHINESE_NOUN = "|".join(sorted(map(re.escape, _CHINESE), key=len, reverse=True))
# A count with a measure word before a noun the table knows (numbers.CHINESE_MEASURES), or
# with the noun right after it; "种" and "类" count kinds alone ("两种") and are measure words
# before a noun ("两种方式").
_CHINESE_COUNT = re.compile(
    rf"(?<![第\d.])(\d+(?:\.\d+)?)\s*([{CHINESE_MEASURES}种类](?={_CHINESE_NOUN}))?"
    rf"({_CHINESE_NOUN})"
)
# A date or a version, not a count, unless a measure word says it counts: "2019年" is the year
# 2019 ("5年" five years), "3月" is March (three months are "3个月"), "3.11 版本" is version
# 3.11 (two versions are "两个版本").
_YEAR = "年"
_NAMED = frozenset(("月", "版本"))


def in_english(claim: str) -> str:
    """The counts of the claim whose noun the tables know, written as English counts, one
    sentence each ("El cliente abre tres conexiones" gives "3 connections."); "" if none."""
    counted = [*_spanish_counts(claim), *_chinese_counts(claim)]
    return " ".join(f"{value} {english}." for value, english in counted if value not in ("0", "1"))


def _spanish_counts(claim: str) -> list[tuple[str, str]]:
    # The table's nouns are written without accents ("conexion"), the numbers with them
    # ("dieciséis"): the words keep theirs, and only a noun is looked up without.
    words = _WORD.findall(claim.casefold())
    out: list[tuple[str, str]] = []
    for k, word in enumerate(words):
        english = _SPANISH.get(_without_accents(word))
        if english is None or k == 0:
            continue
        value = _value_before(words, k)
        if value is not None:
            out.append((value, english))
    return out


def _value_before(words: list[str], k: int) -> str | None:
    """The number right before word `k`: digits, or the Spanish number phrase ending there
    ("treinta y cinco", "ciento veinte")."""
    before = words[k - 1]
    if before[0].isdigit():
        return before.replace(",", ".")
    return spanish_number_before(words, k)


def _chinese_counts(claim: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for match in _CHINESE_COUNT.finditer(chinese_in_digits(claim)):
        value, measure, noun = match.groups()
        named = noun in _NAMED or (noun == _YEAR and len(value) == 4 and value.isdigit())
        if measure is None and named:
            continue
        out.append((value, _CHINESE[noun]))
    return out


def _without_accents(text: str) -> str:
    """`text` without its accents ("conexión" is "conexion"); "ñ" too ("años" is "anos")."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
