"""Cells and observation supports (paper 000, docs/identification.md and docs/formats.md).

A cell fixes one value per axis; its id joins the values with ``:`` in axis order, e.g.
``target:ABC:generated``. The support of a set of components is the product over the axes of the
base values plus the values the chosen components add; the full support uses every component.
Values keep the order in which their axis lists them, so every support has one canonical order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

from audit_core.errors import InputError

CELL_SEPARATOR = ":"

Axes = Mapping[str, Sequence[str]]
AxisValues = Mapping[str, Sequence[str]]


def cell_id(values: Sequence[str]) -> str:
    """Join one value per axis (in axis order) into a cell id."""
    return CELL_SEPARATOR.join(values)


def split_cell_id(cell: str) -> tuple[str, ...]:
    """The values of a cell id in axis order, unchecked against any axes (the one splitting path).

    Use :func:`parse_cell_id` when the axes are known; this is for inferring a layout from ids.
    """
    if not isinstance(cell, str):
        raise InputError(f"cell id {cell!r} is not a string")
    return tuple(cell.split(CELL_SEPARATOR))


def parse_cell_id(cell: str, axes: Axes) -> dict[str, str]:
    """Split a cell id into ``{axis: value}``; InputError when it does not fit the axes."""
    parts = split_cell_id(cell)
    names = list(axes)
    if len(parts) != len(names):
        raise InputError(
            f"cell id {cell!r} has {len(parts)} part(s); expected {len(names)} "
            f"({CELL_SEPARATOR.join(names)})"
        )
    for axis, value in zip(names, parts, strict=True):
        if value not in axes[axis]:
            raise InputError(
                f"cell id {cell!r}: {value!r} is not a value of axis {axis!r} "
                f"(values: {', '.join(axes[axis])})"
            )
    return dict(zip(names, parts, strict=True))


def support_values(
    axes: Axes, base: AxisValues, components: Mapping[str, AxisValues], chosen: Iterable[str]
) -> dict[str, tuple[str, ...]]:
    """Per axis, the base values plus those the chosen components add (axis order kept)."""
    chosen = list(chosen)
    for name in chosen:
        if name not in components:
            raise InputError(
                f"unknown component {name!r} (components: {', '.join(components) or 'none'})"
            )
    values: dict[str, tuple[str, ...]] = {}
    for axis, all_values in axes.items():
        wanted = set(base.get(axis, ()))
        for name in chosen:
            wanted.update(components[name].get(axis, ()))
        values[axis] = tuple(v for v in all_values if v in wanted)
    return values


MAX_CELLS = 100_000  # cells of a full support; a larger product is refused before it is built


def product_cells(values: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """All cell ids of a product of per-axis value lists, in canonical (row-major) order.

    InputError when the product has more than :data:`MAX_CELLS` cells (checked before anything is
    allocated: 40 axes of two values would be 2^40 cells)."""
    size = 1
    for axis_values in values.values():
        size *= max(len(axis_values), 1)
        if size > MAX_CELLS:
            sizes = " x ".join(str(len(v)) for v in values.values())
            raise InputError(f"layout of {len(values)} axes ({sizes} values) spans more than {MAX_CELLS:,} "
                             "cells; the workbench handles layouts of at most that many cells")
    return tuple(cell_id(combo) for combo in itertools.product(*values.values()))


def support_cells_of(
    axes: Axes, base: AxisValues, components: Mapping[str, AxisValues], chosen: Iterable[str]
) -> tuple[str, ...]:
    """Cell ids of the support spanned by ``chosen`` components (canonical order)."""
    return product_cells(support_values(axes, base, components, chosen))


def validate_layout(
    axes: Mapping[str, Sequence[str]],
    base: Mapping[str, Sequence[str]],
    components: Mapping[str, Mapping[str, Sequence[str]]],
    where: str = "policy class",
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]], dict[str, dict[str, tuple[str, ...]]]]:
    """Check axes/base/components and return them as plain dicts of tuples.

    Every axis needs at least one base value; every value must be a base value or be added by some
    component (otherwise no support could ever observe it); component axes/values must exist.
    """
    if not isinstance(axes, Mapping) or not axes:
        raise InputError(f"{where}: 'axes' must be a non-empty object of axis -> list of values")
    clean_axes: dict[str, tuple[str, ...]] = {}
    for axis, values in axes.items():
        if not isinstance(axis, str) or not axis or CELL_SEPARATOR in axis:
            raise InputError(f"{where}: axis name {axis!r} must be a non-empty string without ':'")
        if isinstance(values, str) or not isinstance(values, Sequence) or not values:
            raise InputError(f"{where}: axis {axis!r} must list at least one value")
        for v in values:
            if not isinstance(v, str) or not v or CELL_SEPARATOR in v:
                raise InputError(
                    f"{where}: axis {axis!r} value {v!r} must be a non-empty string without ':'"
                )
        if len(set(values)) != len(values):
            raise InputError(f"{where}: axis {axis!r} lists a value twice")
        clean_axes[axis] = tuple(values)

    axis_sets = {axis: set(values) for axis, values in clean_axes.items()}

    def check_values(owner: str, spec: object) -> dict[str, tuple[str, ...]]:
        if not isinstance(spec, Mapping):
            raise InputError(f"{where}: {owner} must be an object of axis -> list of values")
        out: dict[str, tuple[str, ...]] = {}
        for axis, values in spec.items():
            if axis not in clean_axes:
                raise InputError(f"{where}: {owner} names unknown axis {axis!r}")
            if isinstance(values, str) or not isinstance(values, Sequence):
                raise InputError(f"{where}: {owner} axis {axis!r} must be a list of values")
            known, given = axis_sets[axis], set(values)  # sets: tuple membership here was quadratic
            for v in values:
                if v not in known:
                    raise InputError(f"{where}: {owner} axis {axis!r}: unknown value {v!r}")
            out[axis] = tuple(v for v in clean_axes[axis] if v in given)
        return out

    clean_base = check_values("'base'", base)
    for axis in clean_axes:
        if not clean_base.get(axis):
            raise InputError(f"{where}: 'base' gives no value for axis {axis!r}")
    if not isinstance(components, Mapping):
        raise InputError(f"{where}: 'components' must be an object of name -> axis values")
    clean_components: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, spec in components.items():
        if not isinstance(name, str) or not name or "," in name:
            raise InputError(f"{where}: component name {name!r} must be a non-empty string without ','")
        clean_components[name] = check_values(f"component {name!r}", spec)
    for axis, values in clean_axes.items():
        reachable = set(clean_base[axis])
        for spec in clean_components.values():
            reachable.update(spec.get(axis, ()))
        missing = [v for v in values if v not in reachable]
        if missing:
            raise InputError(
                f"{where}: value {missing[0]!r} of axis {axis!r} is neither a base value nor added "
                "by any component"
            )
    return clean_axes, clean_base, clean_components
