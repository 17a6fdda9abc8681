"""The record of a run as a reviewer reads it: one model, three views.

- `model`: the review's values (`RunReview`, `SessionReview`, `Split`, `Gap`);
- `build`: the review, built from the state, the archived records, the plan and git;
- `facts`: one session's record read as evidence (timeline, time split, attempts, gaps);
- `terminal`: the summary at the end of every run, and `executor show S`;
- `page`: the HTML report (`timeline` draws its SVG pictures, `style` is its CSS);
- `markdown`: the same as markdown, fitted to a limit for a pull request's body;
- `report`: `executor report`, both written beside the plan's state;
- `pr`: `executor pr N` and `--pr`: a finished phase pushed and proposed with `gh`.
"""
