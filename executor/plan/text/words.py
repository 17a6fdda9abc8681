"""The words plans use for their units and steps, in the languages our users write.

One table per meaning, each a regular-expression alternation of the words in English,
Chinese, Japanese, Korean, German, French, Spanish, Portuguese and Vietnamese (accents
optional where authors often drop them). `vocabulary` and `stepwords` build their
patterns from them; `normal()` is applied to a heading or label before it is matched, so
full-width punctuation and digits (`Phase 1：Setup`, `任务 １`) read as their ASCII forms.

Word lists are hints: a superpowers task's shape decides its RED and GREEN steps first
(`executor.plan.readers.tasksteps`), these words only name what the shape leaves open.
"""

from __future__ import annotations

import re
import unicodedata

#: A unit of work that runs and commits: `Session 3`, `Sesión 3`, `セッション 3`.
SESSION = r"session|sesi[oó]n|sess[aã]o|s[eé]ance|sitzung|会话|會話|セッション|세션|phi[eê]n"
#: A task of a task plan: `Task 3`, `任务 3`, `タスク 3`, `Aufgabe 3`.
TASK = (
    r"task|tarea|tarefa|t[aâ]che|aufgabe|任务|任務|タスク|작업|태스크|과제"
    r"|nhi[eệ]m\s+v[uụ]|t[aá]c\s+v[uụ]"
)
#: A phase (a group of sessions or tasks): `Phase 2`, `阶段 2`, `フェーズ 2`, `Fase 2`.
PHASE = r"phase|fase|阶段|階段|フェーズ|段階|페이즈|단계|giai\s+đo[aạ]n"
#: A step inside a task: `Step 1`, `步骤 1`, `ステップ 1`, `Schritt 1`, `Paso 1`.
STEP = r"step|paso|passo|etapa|[eé]tape|schritt|步骤|步驟|ステップ|手順|단계|스텝|b[uư][oớ]c"
#: A user story: `Story 2`, `User Story 2`, `用户故事 2`, `ユーザーストーリー 2`.
STORY = (
    r"(?:user\s+)?story|historia(?:\s+de\s+usuario)?|hist[oó]ria|r[eé]cit|geschichte"
    r"|用户故事|用戶故事|故事|ユーザーストーリー|ストーリー|사용자\s*스토리|유저\s*스토리|스토리"
    r"|c[aâ]u\s+chuy[eệ]n"
)
#: A checkpoint a person confirms: `Checkpoint`, `检查点`, `チェックポイント`.
CHECKPOINT = (
    r"checkpoint|检查点|檢查點|チェックポイント|체크포인트|검문|kontrollpunkt|pr[uü]fpunkt"
    r"|point\s+de\s+contr[oô]le|punto\s+de\s+control|ponto\s+de\s+(?:controle|verifica[cç][aã]o)"
    r"|đi[eể]m\s+ki[eể]m\s+tra"
)
#: A check a person makes by hand: `Manual test`, `手动`, `手動`, `수동`, `Handprobe`.
MANUAL = (
    r"\b(?:manual(?:ly)?\b|by hand\b|browser\b|a\s+mano\b)|手动|手動|人工|目视|目視|수동"
    r"|manuell|handprobe|von\s+hand|[àa]\s+la\s+main|manuel(?:le)?|manualmente|th[uủ]\s+c[oô]ng"
)

#: `Depends on` / `依赖` / `依存`: a task's or phase's dependencies (the English forms are
#: matched where they are read).
DEPENDS = r"依赖|依賴|依存|의존|abh[aä]ngig\s+von|d[ée]pend\s+de|depende\s+de|depende\s+da"

#: What a person looks at in the running product: a page, a screen, a dashboard, a phone.
#: Lower case, `\b` factored out: searched in lowered text without re.I, it costs a
#: twentieth (it runs on every work item of a plan).
LOOK = (
    r"\b(?:(?:web\s*)?pages?\b|screens?\b|dashboards?\b|phones?\b|mobile\b"
    r"|visual(?:ly)?\b|eyeball|by\s+eye\b|in\s+the\s+(?:ui|app)\b|displays?\b"
    r"|shows?\s+up\b|renders?\s+(?:correctly|properly|fine)\b|appearance\b"
    r"|responsive\b|breakpoints?\b|screen\s*readers?\b|lighthouse\b|devices?\b"
    r"|seite\b|anzeige|bildschirm|p[aá]gina\b|pantalla\b|tela\b|[ée]cran\b)"
    r"|页面|頁面|画面|畫面|屏幕|界面|介面|显示|顯示|表示され|ページ|화면|페이지|표시"
)

#: `Run:` / `运行：` / `実行:` / `Befehl:` labels before a command.
RUN_LABEL = (
    r"run|command|test\s+command|verify|运行|執行|执行|命令|実行|コマンド|실행|명령|ausf[uü]hren"
    r"|befehl|kommando|ex[eé]cuter|commande|ejecutar|comando|executar|ch[aạ]y|l[eệ]nh"
)
#: `Expected:` / `预期输出：` / `期待:` / `Erwartung:` labels after a command.
EXPECTED_LABEL = (
    r"expected(?:\s+(?:output|result))?|预期(?:输出|结果)?|預期|期望(?:输出)?|期待(?:値|する結果|結果)?"
    r"|예상(?:\s*결과)?|기대(?:\s*결과)?|erwartet|erwartung|ergebnis|attendu|r[eé]sultat\s+attendu"
    r"|esperado|resultado\s+esperado|k[eế]t\s+qu[aả](?:\s+mong\s+đ[oợ]i)?"
)
#: A `**Files:**` label: `Files`, `文件`, `ファイル`, `Dateien`, `Archivos`.
FILES_LABEL = (
    r"files?|文件|檔案|ファイル|関連ファイル|파일|dateien|datei|fichiers?|archivos?|arquivos?|skripte?|scripts?"
    r"|t[eệ]p(?:\s+tin)?"
)
#: `**Exit criteria**` / `**Erfolgskriterium:**` / `完成条件`: what says a session is done.
EXIT_LABEL = (
    r"erfolgskriteri(?:um|en)|akzeptanzkriteri(?:um|en)|abnahmekriteri(?:um|en)|完成条件|完成标准"
    r"|验收标准|驗收標準|完了条件|受け入れ基準|受入基準|완료\s*조건|수용\s*기준|crit[èe]res?\s+"
    r"(?:d'acceptation|de\s+r[ée]ussite)|crit[ée]rios?\s+de\s+(?:aceita[cç][aã]o|pronto|sucesso)"
    r"|criterios?\s+de\s+(?:aceptaci[oó]n|[ée]xito)"
)
#: Kinds of a `**Files:**` item that the task changes (Create / Modify / Test / Delete).
FILE_CHANGES = (
    r"create|creates|modify|modifies|update|test|tests|delete|remove|add|edit|new|move"
    r"|创建|新建|新增|修改|更新|测试|删除|移动|作成|新規|修正|変更|テスト|削除|생성|수정|테스트|삭제"
    r"|anlegen|erstellen|neu|[aä]ndern|l[oö]schen|cr[eé]er|modifier|supprimer|crear|modificar"
    r"|eliminar|prueba|criar|alterar|excluir|teste|t[aạ]o|s[uử]a|x[oó]a|ki[eể]m\s+th[uử]"
)
#: Kinds of a `**Files:**` item that the task only reads (Read / Verify / Commit).
FILE_READS = r"read|verify|commit|读取|验证|提交|参照|確認|확인|lesen|lire|leer|ler|đ[oọ]c"

# --- what a step does (`stepwords.step_meaning`), beside the English phrasings --------

WRITE_TEST = (
    r"编写失败的?测试|写失败的?测试|失败的?测试|失敗する(?:テスト)?|失敗テスト|실패하는\s*테스트"
    r"|fehlschlagende[nr]?\s+test|[eé]crire\s+le\s+test|test\s+qui\s+[eé]choue"
    r"|(?:escribir|escrever)\s+(?:la|el|o|a)\s+(?:prueba|test|teste)|vi[eế]t\s+test"
    r"|编写测试|テストを書く|테스트\s*작성|tests?\s+schreiben|[eé]crire\s+les?\s+tests?"
    r"|escribir\s+(?:las\s+)?pruebas|escrever\s+(?:os\s+)?testes"
)
FAILS = (
    r"失败|失敗|落ちる|落ち|실패|fehlschlag|fehlschl[aä]gt|schl[aä]gt\s+fehl|\brot\b|[eé]choue"
    r"|[eé]chec|falla|falha|th[aấ]t\s+b[aạ]i|\bred\b|fail"
)
PASSES = (
    r"通过|通過|成功|パス|通る|통과|성공|gr[uü]n|erfolg|bestanden|passe|r[eé]ussi|pasa|passa"
    r"|th[aà]nh\s+c[oô]ng|green|pass"
)
RUNS = (
    r"运行|執行|执行|実行|확인|실행|ausf[uü]hren|laufen\s+lassen|ex[eé]cuter|lancer|ejecutar"
    r"|executar|rodar|ch[aạ]y|验证|驗證|検証|確認|检查|檢查|核对|核對|검증|pr[uü]fen|best[aä]tigen"
    r"|v[eé]rifier|verificar"
    r"|ki[eể]m\s+tra|x[aá]c\s+nh[aậ]n"
)
IMPLEMENT = (
    r"实现|實現|実装|구현|umsetzung|umsetzen|implementier|impl[eé]menter|implementar|tri[eể]n\s+khai"
    r"|最少实现|最小(?:限の)?実装"
)
COMMIT = r"提交|コミット|커밋|commit"
REFACTOR = (
    r"重构|重構|リファクタ|리팩터|리팩토링|refaktor|refactori|refatora|t[aá]i\s+c[aấ]u\s+tr[uú]c"
)
BUILD = r"bauen|build|编译|構建|构建|ビルド|빌드|compiler|compilar|compilation|bi[eê]n\s+d[iị]ch"
#: The words of a RED / GREEN / REFACTOR heading (`### 1.2 GREEN - Implement`, `红灯`).
RED_WORD = r"\bred\b|红灯|红色阶段|\b红\b|レッド|레드|\brot\b|\brouge\b|\brojo\b|vermelho|đ[oỏ]\b"
GREEN_WORD = r"\bgreen\b|绿灯|绿色阶段|\b绿\b|グリーン|그린|gr[uü]n\b|\bvert\b|\bverde\b|\bxanh\b"
REFACTOR_WORD = rf"\brefactor\w*|{REFACTOR}"
FULL_SUITE = (
    r"全部测试|完整测试|全套测试|フルスイート|全テスト|전체\s*테스트|voll(?:e|er)?\s+(?:build|suite)"
    r"|gesamte\s+suite"
    r"|suite\s+compl[eè]te|suite\s+completa|to[aà]n\s+b[oộ]\s+test"
)

_CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


_CJK_UNIT = re.compile(r"[第阶段階任务務步骤驟]")
_CJK_NUMBER = re.compile(
    r"(?<=第)[一二三四五六七八九十]+|(?<=阶段|階段|任务|任務|步骤|步驟)\s*[一二三四五六七八九十]+"
)


def normal(text: str) -> str:
    """`text` as the patterns read it: NFKC (full-width `：`, `１` become `:`, `1`), and a
    CJK numeral that numbers a unit as digits (`第三阶段` -> `第3阶段`, `任务二` -> `任务 2`).
    For matching only: titles keep the author's characters."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    if _CJK_UNIT.search(text):
        text = _CJK_NUMBER.sub(_cjk, text)
    return text


def _cjk(m: re.Match[str]) -> str:
    digits = m.group(0).strip()
    tens, ten, ones = digits.partition("十")
    if ten:
        value = _CJK_DIGITS.get(tens, 1) * 10 + _CJK_DIGITS.get(ones, 0)
    else:
        value = _CJK_DIGITS[digits[-1]]
    after_di = m.string[m.start() - 1 : m.start()] == "第"
    return str(value) if after_di else f" {value}"


class Unit:
    """A heading or line that names a unit by a word and a number, in any of the
    languages above: `Task 3: Title`, `任务 3：标题`, `第3阶段：…`, `Schritt 2.`; `match`
    returns its id (group 1) and the rest (group 2) as the author wrote it."""

    def __init__(self, words: str, ident: str = r"\d+", *, rest: bool = True, bold: bool = False):
        sep = r"\s*(?:[:\-–—.)、]\s*)?" if rest else r"\s*[:\-–—.)、]\s*"
        lead = r"(?:\*\*|__)?" if bold else ""
        self._pattern = re.compile(
            rf"^{lead}(?:(?:{words})\s*#?({ident})|第\s*({ident})\s*(?:{words})|({ident})\s*(?:{words}))"
            rf"(?![\w./]){sep}(.*)$",
            re.IGNORECASE | re.S,
        )

    def match(self, text: str) -> UnitMatch | None:
        norm = normal(text)
        m = self._pattern.match(norm)
        if m is None:
            return None
        ident = next(g for g in m.groups()[:3] if g is not None)
        rest = m.group(4)
        return UnitMatch(ident, _original_tail(text, norm, len(norm) - len(rest)))


class UnitMatch:
    """`re.Match`-like: group(1) the id, group(2) the rest of the line."""

    def __init__(self, ident: str, rest: str) -> None:
        self._groups = (ident, rest)

    def group(self, n: int) -> str:
        return self._groups[n - 1]


def _original_tail(text: str, norm: str, start: int) -> str:
    """The part of `text` whose normal form is `norm[start:]` (titles keep full-width
    punctuation and the author's characters)."""
    if text == norm:
        return text[start:]
    for i in range(len(text) + 1):
        if len(normal(text[:i])) >= start:
            return text[i:].strip()
    return norm[start:]
