"""Plans in the languages their authors write (issue 28): the units, steps and labels in
en/zh/ja/ko/de/fr/es/pt/vi, any letter case, full-width punctuation; and a step's role
read from its words when the task's shape does not say it."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.plan import lint, load_plan
from tests.plan.helpers import write

#: (task word, step word, write the failing test, run it: fails, implement, run: passes,
#: commit, run label, expected label) per language.
WORDS = {
    "en": ("Task", "Step", "Write the failing test", "Run it to verify it fails",
           "Implement", "Run it to verify it passes", "Commit", "Run:", "Expected:"),
    "zh": ("任务", "步骤", "编写失败的测试", "运行测试验证失败", "实现", "运行测试验证通过",
           "提交", "运行：", "预期输出："),
    "ja": ("タスク", "ステップ", "失敗するテストを書く", "テストを実行して失敗を確認",
           "最小限の実装", "テストを実行してパスを確認", "コミット", "実行:", "期待:"),
    "ko": ("작업", "단계", "실패하는 테스트 작성", "테스트 실행하여 실패 확인", "구현",
           "테스트 실행하여 통과 확인", "커밋", "실행:", "예상 결과:"),
    "de": ("Aufgabe", "Schritt", "Fehlschlagenden Test schreiben",
           "Test ausführen: schlägt fehl", "Umsetzung", "Test ausführen: bestanden",
           "Commit", "Ausführen:", "Erwartet:"),
    "fr": ("Tâche", "Étape", "Écrire le test qui échoue", "Exécuter le test : il échoue",
           "Implémenter", "Exécuter le test : il passe", "Commit", "Commande :", "Attendu :"),
    "es": ("Tarea", "Paso", "Escribir la prueba que falla", "Ejecutar la prueba: falla",
           "Implementar", "Ejecutar la prueba: pasa", "Commit", "Ejecutar:", "Esperado:"),
    "pt": ("Tarefa", "Passo", "Escrever o teste que falha", "Executar o teste: falha",
           "Implementar", "Executar o teste: passa", "Commit", "Executar:", "Esperado:"),
    "vi": ("Nhiệm vụ", "Bước", "Viết test thất bại", "Chạy test: thất bại", "Triển khai",
           "Chạy test: thành công", "Commit", "Chạy:", "Kết quả:"),
}  # fmt: skip


def _task_plan(
    lang: str, *, fullwidth: bool = False, shout: bool = False, code: bool = True
) -> str:
    task, step, write_test, fails, implement, passes, commit, run, expected = WORDS[lang]
    colon = "：" if fullwidth else ":"
    if shout:
        task, step = task.upper(), step.upper()
    steps = [
        (write_test, "```python\ndef test_count():\n    assert count('a b') == 2\n```"),
        (fails, f"{run} `pytest tests/test_count.py -q`\n{expected} FAIL"),
        (implement, "```python\ndef count(text):\n    return len(text.split())\n```"),
        (passes, f"{run} `pytest tests/test_count.py -q`\n{expected} PASS"),
        (commit, "```bash\ngit add -A && git commit -m count\n```"),
    ]
    if not code:  # no shape to go by: the step titles' words decide
        steps[0] = (write_test, "`tests/test_count.py`")
        steps[2] = (implement, "`src/count.py`")
    body = [f"# Plan\n\n### {task} 1{colon} Count\n"]
    body += [f"- [ ] **{step} {n}{colon} {title}**\n\n{text}\n" for n, (title, text) in
             enumerate(steps, start=1)]  # fmt: skip
    body += [f"### {task} 2{colon} Docs\n\n- [ ] **{step} 1{colon} {implement}**\n"]
    return "\n".join(body)


@pytest.mark.parametrize("lang", sorted(WORDS))
@pytest.mark.parametrize("variant", ["plain", "fullwidth", "upper", "words only"])
def test_a_task_plan_reads_the_same_in_every_language(
    tmp_path: Path, lang: str, variant: str
) -> None:
    text = _task_plan(
        lang, fullwidth=variant == "fullwidth", shout=variant == "upper", code=variant == "plain"
    )
    plan = load_plan(write(tmp_path, "plan.md", text))
    assert [d for d in lint(plan) if d.severity == "error"] == []
    first, second = plan.sessions()
    assert (first.number, first.title, first.tdd) == (1, "Count", True)
    assert (second.number, second.title) == (2, "Docs")
    assert first.test_command("red") == "pytest tests/test_count.py -q"
    assert first.test_command("green") == "pytest tests/test_count.py -q"
    assert [c.command for c in first.not_checks] == []  # the commit block is the executor's
    assert first.step("red") is not None and first.step("green") is not None


@pytest.mark.parametrize(
    ("heading", "phase"),
    [
        ("## Phase 1: Setup", 1),
        ("## phase 1: Setup", 1),
        ("## Phase 1：Setup", 1),
        ("## 阶段 1：搭建", 1),
        ("## 第一阶段：搭建", 1),
        ("## フェーズ 1: セットアップ", 1),
        ("## 1단계: 설정", 1),
        ("## Phase 1 : Mise en place", 1),
        ("## Fase 1: Configuración", 1),
        ("## Giai đoạn 1: Thiết lập", 1),
    ],
)
def test_speckit_phases_in_every_language(tmp_path: Path, heading: str, phase: int) -> None:
    text = f"# Tasks: Notes\n\n{heading}\n\n- [ ] **T001** Create `src/a.py`\n"
    text += "\n## Phase N: Polish & Cross-Cutting Concerns\n\n- [ ] T002 Docs in `README.md`\n"
    plan = load_plan(write(tmp_path / "specs" / "001-notes", "tasks.md", text))
    assert [d for d in lint(plan) if d.severity == "error"] == []
    assert [p.number for p in plan.phases] == [phase, phase + 1]
    assert [s.number for s in plan.sessions()] == [1, 2]
    assert [f.path for f in plan.sessions()[0].files] == ["src/a.py"]


def test_files_lists_keep_dotfiles_bare_names_and_framework_paths(tmp_path: Path) -> None:
    paths = [
        ".env.local", "scripts/pre-commit", "app/(auth)/login/[id]/page.tsx",
        "scenes/Main.tscn", "Game.sln", "src/App/App.csproj", "src/App/MainWindow.xaml",
    ]  # fmt: skip
    files = "\n".join(f"- Create: `{p}`" for p in paths)
    text = f"""# Plan

### Task 1: Scaffold

**Files:**
{files}

- [ ] **Step 1: Implement**
- [ ] **Step 2: Commit**
"""
    plan = load_plan(write(tmp_path, "plan.md", text))
    (session,) = plan.sessions()
    assert [f.path for f in session.files] == paths
    assert not session.claimed_done
