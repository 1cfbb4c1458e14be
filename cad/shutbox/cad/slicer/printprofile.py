"""The print settings the kit recommends, as PrusaSlicer names them: one configuration per nozzle
(PLA, speeds, cooling, the printer's limits for the time estimate), on top of which each part carries
its own nozzle, layer height, perimeters and infill (``PrintSettings`` of its ``PartSpec`` in
``shutbox.cad.geometry.parts``). The project 3MFs (``shutbox.cad.slicer.project3mf``), the build guide's print section
and
``bench/print_profiles.py`` all read them here.

``SPEED_PROFILE`` names the vendor profile the kit is also measured on (Prusa's own MK3S speed preset
with Prusament PLA, resolved from PrusaSlicer's bundle by ``shutbox.cad.slicer.vendorprofile``): what a user gets who
opens the projects and picks that preset, the parts keeping their own per-object settings.
"""

from __future__ import annotations

#: Prusa's own preset the guide also gives figures for: (print, filament, printer) section names.
SPEED_PROFILE = ("0.20mm SPEED @MK3", "Prusament PLA", "Original Prusa i3 MK3S & MK3S+")
#: Extrusion width for each nozzle the kit's parts use, mm.
EXTRUSION_WIDTH = {0.4: 0.45, 0.6: 0.65}
FIRST_LAYER_MM = 0.2

#: PLA, 1.75 mm, at 1.24 g/cm3 (what the grams are weighed at), fan on after the first layer.
FILAMENT = {
    "filament_type": "PLA", "filament_diameter": "1.75", "filament_density": "1.24",
    "temperature": "215", "first_layer_temperature": "215", "bed_temperature": "60",
    "first_layer_bed_temperature": "60", "filament_max_volumetric_speed": "15",
    "cooling": "1", "fan_always_on": "1", "min_fan_speed": "100", "max_fan_speed": "100",
    "bridge_fan_speed": "100", "disable_fan_first_layers": "1", "fan_below_layer_time": "100",
    "slowdown_below_layer_time": "10", "min_print_speed": "15",
}
#: A Marlin-style printer of the MK3S/MK4 class: its limits only shape the time estimate.
PRINTER = {
    "gcode_flavor": "marlin2", "machine_limits_usage": "time_estimate_only",
    "machine_max_acceleration_extruding": "1250,1250", "machine_max_acceleration_retracting": "1250,1250",
    "machine_max_acceleration_travel": "1250,1250", "machine_max_acceleration_x": "1000,960",
    "machine_max_acceleration_y": "1000,960", "machine_max_acceleration_z": "200,200",
    "machine_max_acceleration_e": "5000,5000", "machine_max_feedrate_x": "200,100",
    "machine_max_feedrate_y": "200,100", "machine_max_feedrate_z": "12,12", "machine_max_feedrate_e": "120,120",
    "machine_max_jerk_x": "8,8", "machine_max_jerk_y": "8,8", "machine_max_jerk_z": "0.4,0.4",
    "machine_max_jerk_e": "4.5,4.5", "retract_length": "0.8", "retract_speed": "35", "retract_lift": "0.2",
    "use_relative_e_distances": "1", "layer_gcode": "G92 E0",
}
#: Speeds (mm/s) and accelerations (mm/s2) for PLA; no support anywhere: every part prints without it.
PRINT = {
    "first_layer_height": f"{FIRST_LAYER_MM:g}", "support_material": "0", "support_material_auto": "0",
    "perimeter_speed": "60", "external_perimeter_speed": "45", "small_perimeter_speed": "30",
    "infill_speed": "200", "solid_infill_speed": "200", "top_solid_infill_speed": "60", "gap_fill_speed": "40",
    "bridge_speed": "30", "travel_speed": "180", "first_layer_speed": "25", "max_print_speed": "200",
    "default_acceleration": "1000", "perimeter_acceleration": "800", "infill_acceleration": "1000",
    "bridge_acceleration": "1000", "first_layer_acceleration": "800",
    "top_solid_layers": "5", "bottom_solid_layers": "4", "ensure_vertical_shell_thickness": "1",
    "skirts": "1", "skirt_distance": "2", "skirt_height": "1", "brim_width": "0",
    "infill_first": "0", "thin_walls": "0", "avoid_crossing_perimeters": "0",
}


def plate_config(nozzle_mm: float, bed_mm: tuple[float, float, float]) -> dict[str, str]:
    """The print configuration of a plate printed with ``nozzle_mm`` on a W x H x Z bed."""
    if nozzle_mm not in EXTRUSION_WIDTH:
        raise ValueError(f"nozzle {nozzle_mm:g} mm: allowed: {', '.join(f'{n:g}' for n in EXTRUSION_WIDTH)}")
    w, h, z = bed_mm
    width = f"{EXTRUSION_WIDTH[nozzle_mm]:g}"
    widths = {f"{k}extrusion_width": width for k in ("", "perimeter_", "external_perimeter_", "infill_",
                                                      "solid_infill_", "top_infill_")}
    return {**PRINTER, **FILAMENT, **PRINT, **widths,
            "nozzle_diameter": f"{nozzle_mm:g}", "first_layer_extrusion_width": f"{max(0.42, nozzle_mm * 1.1):g}",
            "min_layer_height": "0.07", "max_layer_height": f"{nozzle_mm * 0.75:g}",
            "bed_shape": f"0x0,{w:g}x0,{w:g}x{h:g},0x{h:g}", "max_print_height": f"{z:g}"}
