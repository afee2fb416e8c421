"""Type stubs of the bozkir package (see the module docstring and docs/python.md)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Progress = Callable[[str, int, int], Any]
CellSize = Union[float, Tuple[float, float]]
Heights = npt.NDArray[np.float64]

def list_recipes() -> List[str]: ...
def list_profiles() -> List[str]: ...
def list_generators() -> List[str]: ...
def get_info(name: str) -> Tuple[str, bool, str]: ...
def generator_table() -> List[Tuple[str, bool, str]]: ...

class World:
    name: str
    height: npt.NDArray[np.float64]
    water_depth: npt.NDArray[np.float64]
    water_surface: npt.NDArray[np.float32]
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    shape: Tuple[int, int]
    resolution: float
    domain_size: Tuple[float, float]
    metadata: Dict[str, Any]
    dx: float
    dy: float
    colour: Optional[npt.NDArray[np.uint8]]
    roads: int
    rivers: int
    trees: int
    def __getitem__(self, key: str) -> Any: ...
def run_recipe(
    recipe: str,
    size: Optional[int] = None,
    cell_size: Optional[float] = None,
    seed: Optional[int] = None,
    until: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> Dict[str, Any]: ...
def profile(
    name: str,
    seed: int = 0,
    size: int = 512,
    cell_size: float = 10.0,
    height_range: float = 1000.0,
    progress: Optional[Progress] = None,
) -> Dict[str, Any]: ...
def apply(
    height: Heights,
    op: str,
    cell_size: Optional[CellSize] = None,
    seed: int = 0,
    progress: Optional[Progress] = None,
    **params: Union[float, int, bool, str, Sequence[Any]],
) -> Dict[str, Any]: ...
def erode(
    height: Heights,
    cell_size: Optional[CellSize] = None,
    steps: int = 100,
    k: float = 1e-5,
    m: float = 0.5,
    uplift: float = 0.0,
    diffusion: float = 0.01,
    dt: float = 1000.0,
    area_cap: Optional[float] = None,
    area_floor: Optional[float] = None,
    progress: Optional[Progress] = None,
) -> Dict[str, Any]: ...
def analyze(
    height: Heights,
    cell_size: Optional[CellSize] = None,
    outputs: str = "all",
    progress: Optional[Progress] = None,
) -> Dict[str, npt.NDArray[Any]]: ...
def read_dem(path: Union[str, PathLike[str]]) -> Dict[str, Any]: ...
def write_geotiff(
    path: Union[str, PathLike[str]],
    height: Heights,
    cell_size: Optional[CellSize] = None,
    crs: Optional[str] = None,
    origin: Tuple[float, float] = (0.0, 0.0),
) -> None: ...
def write_height(
    path: Union[str, PathLike[str]],
    height: Heights,
    cell_size: Optional[CellSize] = None,
    lo: Optional[float] = None,
    hi: Optional[float] = None,
    crs: Optional[str] = None,
    origin: Tuple[float, float] = (0.0, 0.0),
) -> Tuple[float, float]: ...
def read_points(path: Union[str, PathLike[str]]) -> Dict[str, Any]: ...
def generate(name: str, seed: Union[int, str] = 0, progress: Optional[Progress] = None, **params: Any) -> World: ...
def to_dataarray(result: Union[Dict[str, Any], World], name: str = "height") -> Any: ...
def from_dataarray(da: Any) -> Dict[str, Any]: ...
