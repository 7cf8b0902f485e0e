package v1

import (
	"fmt"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	maxBlockDeviceMappings = 50
	// volumeSizePattern is the CRD pattern of an EBS volume size: 1Gi to 59000Gi, 1G to 64000G,
	// 1Ti to 58Ti or 1T to 64T.
	volumeSizePattern = `^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`
)

func volumeTypes() []string {
	return []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}
}

func validateBlockDeviceMappings(path *field.Path, mappings []*BlockDeviceMapping) field.ErrorList {
	var errs field.ErrorList
	if len(mappings) > maxBlockDeviceMappings {
		errs = append(errs, field.Invalid(path, len(mappings), fmt.Sprintf("must have at most %d block device mappings, got %d", maxBlockDeviceMappings, len(mappings))))
	}
	roots := 0
	for i, m := range mappings {
		if m == nil {
			errs = append(errs, field.Required(path.Index(i), "a block device mapping may not be null"))
			continue
		}
		if m.RootVolume {
			roots++
			if roots == 2 {
				errs = append(errs, field.Invalid(path.Index(i).Child("rootVolume"), true, "at most one blockDeviceMapping may be the rootVolume"))
			}
		}
		errs = append(errs, validateBlockDevice(path.Index(i).Child("ebs"), m.EBS)...)
	}
	return errs
}

func validateBlockDevice(path *field.Path, ebs *BlockDevice) field.ErrorList {
	if ebs == nil {
		return nil
	}
	var errs field.ErrorList
	if ebs.SnapshotID == nil && ebs.VolumeSize == nil {
		errs = append(errs, field.Required(path, "an ebs volume needs snapshotID or volumeSize"))
	}
	if ebs.VolumeSize != nil && !regexp.MustCompile(volumeSizePattern).MatchString(ebs.VolumeSize.String()) {
		errs = append(errs, field.Invalid(path.Child("volumeSize"), ebs.VolumeSize.String(),
			fmt.Sprintf("must be 1Gi to 59000Gi, 1G to 64000G, 1Ti to 58Ti or 1T to 64T, got %q", ebs.VolumeSize.String())))
	}
	if ebs.VolumeType != nil && !slices.Contains(volumeTypes(), *ebs.VolumeType) {
		errs = append(errs, field.Invalid(path.Child("volumeType"), *ebs.VolumeType,
			fmt.Sprintf("must be one of standard, io1, io2, gp2, sc1, st1, gp3, got %q", *ebs.VolumeType)))
	}
	if rate := ebs.VolumeInitializationRate; rate != nil {
		if *rate < 100 || *rate > 300 {
			errs = append(errs, field.Invalid(path.Child("volumeInitializationRate"), *rate, fmt.Sprintf("must be between 100 and 300 MiB/s, got %d", *rate)))
		}
		if ebs.SnapshotID == nil || *ebs.SnapshotID == "" {
			errs = append(errs, field.Required(path.Child("snapshotID"), "volumeInitializationRate needs snapshotID"))
		}
	}
	return errs
}
