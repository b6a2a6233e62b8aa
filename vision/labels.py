"""Where the overlay's labels go (:mod:`vision.overlay`): on a busy table the natural place of a
unit's label (just behind its rear) can be on another unit or on another label, so each label
takes the first free place among a few around its unit, and the least crowded one when none is
free. Pure pixel geometry: boxes are (x0, y0, x1, y1)."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapely.geometry import Polygon, box

Box = tuple[float, float, float, float]


def overlap(a: Box, b: Box) -> float:
    """Area shared by two boxes (px^2)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


@dataclass
class LabelBoard:
    """The text boxes placed so far and the shapes labels should keep off (units, px)."""

    boxes: list[Box] = field(default_factory=list)
    obstacles: list[Polygon] = field(default_factory=list)

    def add(self, b: Box) -> None:
        self.boxes.append(b)

    def cost(self, b: Box) -> float:
        """How bad a place is: other labels count four times what units do (a label on a unit
        still reads; two labels on each other do not)."""
        on_labels = sum(overlap(b, o) for o in self.boxes)
        shape = box(*b)
        on_units = sum(shape.intersection(p).area for p in self.obstacles
                       if p.bounds[0] < b[2] and p.bounds[2] > b[0]
                       and p.bounds[1] < b[3] and p.bounds[3] > b[1])
        return 4 * on_labels + on_units

    def place(self, centres: list[tuple[float, float]], size: tuple[float, float],
              pad: float = 0.0) -> int:
        """The index of the first candidate centre whose box (``size`` plus ``pad`` all round)
        is free, else of the least crowded one; its box (without the pad) is recorded."""
        w, h = size[0] / 2, size[1] / 2
        costs = [self.cost((x - w - pad, y - h - pad, x + w + pad, y + h + pad))
                 for x, y in centres]
        best = next((i for i, c in enumerate(costs) if c <= 0), None)
        if best is None:
            best = min(range(len(centres)), key=lambda i: (costs[i], i))
        x, y = centres[best]
        self.add((x - w, y - h, x + w, y + h))
        return best
